"""The Wissen page (what is indexed, by whom, running jobs, consent switches), its htmx partial,
the badge's JSON status and the POST actions. Every change goes through the services."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.accounts.principal import Principal
from apps.core.web import domain_errors, reported
from apps.knowledge import consent, embeddings, services
from apps.knowledge.labels import path_labels
from apps.knowledge.models import ConsentRule


def _folders(principal: Principal, files, rules, labels: dict[str, str]) -> list[dict]:
    """One switch per folder that holds indexed content or has a rule of its own; staff get a
    working switch only where everything below is their own personal content."""
    resolver = consent.Resolver(rules)
    scope = principal.resource_scope

    def can_switch(key: str, path: str) -> bool:
        if scope.is_admin:
            return True
        below = [f for f in files if consent.covers(path, f.path) and (not key or f.connection_key == key)]
        return (
            path != ""
            and bool(below)
            and all(f.scope == "personal" and f.owner_id == scope.user_id for f in below)
        )

    keys = {(f.connection_key, f.path) for f in files} | {(r.connection_key, r.path_prefix) for r in rules}
    own = {(r.connection_key, r.path_prefix): r for r in rules}
    rows = []
    for key, path in sorted(keys, key=lambda k: (k[0], k[1])):
        rule = own.get((key, path))
        effective = resolver.rule_for(path, key)
        rows.append(
            {
                "path": path,
                "label": labels.get(path) or path or _("All folders"),
                "connection_key": key,
                "enabled": resolver.enabled(path, key),
                "can_switch": can_switch(key, path),
                "rule": rule,
                "inherited_from": None
                if effective is None or effective is rule
                else effective.path_prefix or "/",
            }
        )
    return rows


def _jobs_context(principal: Principal) -> dict:
    jobs = services.active_jobs(principal)
    return {"jobs": jobs}


@login_required
def index_page(request):
    principal = request.principal
    files = services.inventory(principal)
    rules = list(ConsentRule.objects.select_related("changed_by"))
    if not principal.resource_scope.is_admin:
        rules = [r for r in rules if any(consent.covers(r.path_prefix, f.path) for f in files)]
    labels = path_labels([f.path for f in files] + [r.path_prefix for r in rules])
    for f in files:
        f.folder_label = labels.get(f.path) or f.path or "/"
    context = {
        "files": files,
        "totals": services.totals(principal),
        "folders": _folders(principal, files, rules, labels),
        "model": embeddings.load_config().public(),
        "is_admin": principal.resource_scope.is_admin,
        **_jobs_context(principal),
    }
    return render(request, "knowledge/index.html", context)


@login_required
def jobs_partial(request):
    return render(request, "knowledge/_jobs.html", _jobs_context(request.principal))


@login_required
def status_json(request):
    response = JsonResponse(services.status_summary(request.principal))
    response["Cache-Control"] = "no-store"
    return response


def _act(request, action: Callable[[], Any], done: str | Callable[[Any], str]) -> HttpResponse:
    """One POST action of the Wissen page. htmx gets the jobs partial (a refusal answers with its
    status through `@domain_errors`); a page gets the outcome as a message on the Wissen page."""
    if request.htmx:
        action()
        return render(request, "knowledge/_jobs.html", _jobs_context(request.principal))
    with reported(request) as outcome:
        result = action()
    if not outcome.failed:
        messages.success(request, done(result) if callable(done) else done)
    return redirect("knowledge:index")


@login_required
@require_POST
@domain_errors
def cancel_job(request, job_id: int):
    return _act(
        request,
        lambda: services.cancel_job(request.principal, job_id),
        _("The indexing job stops after its current step."),
    )


@login_required
@require_POST
@domain_errors
def reindex_file(request, file_id: int):
    return _act(
        request,
        lambda: services.reindex_file(request.principal, file_id),
        _("The file is queued for indexing."),
    )


@login_required
@require_POST
@domain_errors
def set_consent(request):
    enabled = request.POST.get("enabled") == "1"

    def switched(result) -> str:
        _rule, changed = result
        if enabled:
            return _("Indexing is on for this folder; %(n)s files queued.") % {"n": changed}
        return _("Indexing is off for this folder; %(n)s files removed from the index.") % {"n": changed}

    return _act(
        request,
        lambda: consent.set_consent(
            request.principal,
            request.POST.get("path", ""),
            enabled,
            connection_key=request.POST.get("connection_key", ""),
        ),
        switched,
    )


@login_required
@require_POST
@domain_errors
def clear_consent(request, rule_id: int):
    return _act(
        request,
        lambda: consent.clear_rule(request.principal, rule_id),
        _("The folder inherits its switch again."),
    )


@login_required
@require_POST
def configure_model(request):
    """Admins switch the embedding provider; a new model re-indexes everything."""
    post = request.POST
    with reported(request) as outcome:
        config, queued = services.configure_embeddings(
            request.principal,
            provider=post.get("provider", ""),
            base_url=post.get("base_url", ""),
            model=post.get("model", ""),
            api_key=post.get("api_key") or None,  # empty: keep the stored key
            send_dimensions=post.get("send_dimensions") == "1",
        )
    if not outcome.failed:
        messages.success(
            request,
            _("Embedding model: %(model)s; %(n)s files queued for indexing.")
            % {"model": config.model_id, "n": queued},
        )
    return redirect("knowledge:index")
