"""The Wissen page (what is indexed, by whom, running jobs, consent switches), its htmx partial,
the badge's JSON status and the POST actions. Every change goes through the services."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.accounts.principal import Principal
from apps.core.errors import DomainError
from apps.knowledge import consent, embeddings, services
from apps.knowledge.labels import path_labels
from apps.knowledge.models import ConsentRule


def _principal(request) -> Principal:
    return Principal.for_user(request.user)


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
    principal = _principal(request)
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
    return render(request, "knowledge/_jobs.html", _jobs_context(_principal(request)))


@login_required
def status_json(request):
    response = JsonResponse(services.status_summary(_principal(request)))
    response["Cache-Control"] = "no-store"
    return response


def _done(request, ok_message: str | None = None, error: DomainError | None = None):
    if request.htmx:
        if error is not None:
            return HttpResponse(error.message, status=error.http_status)
        return render(request, "knowledge/_jobs.html", _jobs_context(_principal(request)))
    if error is not None:
        messages.error(request, error.message)
    elif ok_message:
        messages.success(request, ok_message)
    return redirect("knowledge:index")


@login_required
@require_POST
def cancel_job(request, job_id: int):
    try:
        services.cancel_job(_principal(request), job_id)
    except DomainError as exc:
        return _done(request, error=exc)
    return _done(request, _("The indexing job stops after its current step."))


@login_required
@require_POST
def reindex_file(request, file_id: int):
    try:
        services.reindex_file(_principal(request), file_id)
    except DomainError as exc:
        return _done(request, error=exc)
    return _done(request, _("The file is queued for indexing."))


@login_required
@require_POST
def set_consent(request):
    enabled = request.POST.get("enabled") == "1"
    try:
        _rule, changed = consent.set_consent(
            _principal(request),
            request.POST.get("path", ""),
            enabled,
            connection_key=request.POST.get("connection_key", ""),
        )
    except DomainError as exc:
        return _done(request, error=exc)
    if enabled:
        text = _("Indexing is on for this folder; %(n)s files queued.") % {"n": changed}
    else:
        text = _("Indexing is off for this folder; %(n)s files removed from the index.") % {"n": changed}
    return _done(request, text)


@login_required
@require_POST
def clear_consent(request, rule_id: int):
    try:
        consent.clear_rule(_principal(request), rule_id)
    except DomainError as exc:
        return _done(request, error=exc)
    return _done(request, _("The folder inherits its switch again."))


@login_required
@require_POST
def configure_model(request):
    """Admins switch the embedding provider; a new model re-indexes everything."""
    post = request.POST
    try:
        config, queued = services.configure_embeddings(
            _principal(request),
            provider=post.get("provider", ""),
            base_url=post.get("base_url", ""),
            model=post.get("model", ""),
            api_key=post.get("api_key") or None,  # empty: keep the stored key
            send_dimensions=post.get("send_dimensions") == "1",
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("knowledge:index")
    messages.success(
        request,
        _("Embedding model: %(model)s; %(n)s files queued for indexing.")
        % {"model": config.model_id, "n": queued},
    )
    return redirect("knowledge:index")
