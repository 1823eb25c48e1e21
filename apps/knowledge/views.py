"""The Wissen page (read-only: what the viewer may see in the index, its state, running jobs),
the admins' management page (consent switches, the embedding model), the jobs partial, the
badge's JSON status and the POST actions. Every change goes through the services; all but
cancelling one's own job are for admins (403 otherwise)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from apps.accounts.principal import Principal
from apps.core.surfaces import web
from apps.core.surfaces.web import domain_errors, querystring_without_page, reported
from apps.knowledge import consent, embeddings, services, switching
from apps.knowledge.contracts import ConsentSwitch, EmbeddingSettings, IndexFilter
from apps.knowledge.labels import path_labels
from apps.knowledge.models import ConsentRule, KnowledgeFile


def _folders(files, rules, labels: dict[str, str]) -> list[dict]:
    """One switch per folder that holds indexed content or has a rule of its own (the management
    page is for admins, who may switch every folder)."""
    resolver = consent.Resolver(rules)

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


PAGE_SIZE = 50
SOURCE_LABELS = {
    "document": gettext_lazy("Documents"),
    "note": gettext_lazy("Notes"),
    "wiki": gettext_lazy("Wiki"),
}


def _admin_only(request) -> None:
    """Managing the store is an admin page: staff get the read-only inventory only."""
    if not request.principal.resource_scope.is_admin:
        raise PermissionDenied(_("Only administrators can manage the knowledge store."))


def index_page(request):
    """What is indexed ("Was ist indexiert"), read-only: the files the viewer may see (admins:
    every file's metadata, never its content), with counts and indexing state, paginated."""
    principal = request.principal
    filters = web.query(request, IndexFilter)
    paging = web.paged(request, PAGE_SIZE)
    files, total = services.indexed_page(principal, filters, **paging.window)
    labels = path_labels([f.path for f in files])
    for f in files:
        f.folder_label = labels.get(f.path) or f.path or "/"
    counts = services.counts(principal)
    context = {
        "files": files,
        "total": total,
        "status": filters.status,
        "page": paging.page(total),
        "querystring": querystring_without_page(request),
        "totals": services.totals(principal),
        "by_type": [(SOURCE_LABELS.get(key, key), n) for key, n in sorted(counts["by_type"].items())],
        "by_status": [
            (value, label, counts["by_status"].get(value, 0))
            for value, label in KnowledgeFile.Status.choices
            if counts["by_status"].get(value)
        ],
        "is_admin": principal.resource_scope.is_admin,
        **_jobs_context(principal),
    }
    return render(request, "knowledge/index.html", context)


def manage_page(request):
    """The admins' control plane: consent per folder and the embedding model; re-indexing and
    purging single files are actions in the Django admin (`apps.knowledge.admin`)."""
    _admin_only(request)
    principal = request.principal
    files = services.inventory(principal)
    rules = list(ConsentRule.objects.select_related("changed_by"))
    labels = path_labels([f.path for f in files] + [r.path_prefix for r in rules])
    context = {
        "totals": services.totals(principal),
        "folders": _folders(files, rules, labels),
        "model": embeddings.load_config().public(),
    }
    return render(request, "knowledge/manage.html", context)


def jobs_partial(request):
    return render(request, "knowledge/_jobs.html", _jobs_context(request.principal))


def status_json(request):
    response = JsonResponse(services.status_summary(request.principal))
    response["Cache-Control"] = "no-store"
    return response


def _action(
    done: Any, back: str = "knowledge:manage", *, admin: bool = True
) -> Callable[[Callable[..., Any]], Callable[..., HttpResponse]]:
    """One POST action of the Wissen pages: the decorated function calls the service, `done` is
    the success message (or makes it from the result). Admins only unless `admin=False`. htmx
    gets the jobs partial (a refusal answers with its status through `@domain_errors`); a page
    gets the outcome as a message on the Wissen page `back`."""

    def decorate(action: Callable[..., Any]) -> Callable[..., HttpResponse]:
        @require_POST
        @domain_errors
        @wraps(action)
        def view(request, **ids: int) -> HttpResponse:
            if admin:
                _admin_only(request)
            if request.htmx:
                action(request, **ids)
                return render(request, "knowledge/_jobs.html", _jobs_context(request.principal))
            with reported(request) as outcome:
                result = action(request, **ids)
            if not outcome.failed:
                messages.success(request, done(result) if callable(done) else done)
            return redirect(back)

        return view

    return decorate


@_action(gettext_lazy("The indexing job stops after its current step."), back="knowledge:index", admin=False)
def cancel_job(request, job_id: int):
    return services.cancel_job(request.principal, job_id)


@_action(gettext_lazy("The file is queued for indexing."))
def reindex_file(request, file_id: int):
    return services.reindex_file(request.principal, file_id)


def _switched(result) -> str:
    rule, changed = result
    if rule.enabled:
        return _("Indexing is on for this folder; %(n)s files queued.") % {"n": changed}
    return _("Indexing is off for this folder; %(n)s files removed from the index.") % {"n": changed}


@_action(_switched)
def set_consent(request):
    return switching.set_consent(request.principal, web.posted(request, ConsentSwitch))


@_action(gettext_lazy("The folder inherits its switch again."))
def clear_consent(request, rule_id: int):
    return switching.clear_rule(request.principal, rule_id)


@require_POST
def configure_model(request):
    """Admins switch the embedding provider; a new model re-indexes everything."""
    _admin_only(request)
    with reported(request) as outcome:
        # An empty api_key is left out: the stored key stays.
        config, queued = services.configure_embeddings(
            request.principal, web.posted(request, EmbeddingSettings)
        )
    if not outcome.failed:
        messages.success(
            request,
            _("Embedding model: %(model)s; %(n)s files queued for indexing.")
            % {"model": config.model_id, "n": queued},
        )
    return redirect("knowledge:manage")
