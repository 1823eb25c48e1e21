"""The memory pages of this app. „Was Clapilot sich merkt“ (`index`): each person's page of what
the copilot remembers about them (personal memory, in every state) and about the office (approved,
valid shared memory). The holder edits and forgets their own memory (a hard delete, GDPR),
reviewers edit and retract the office's; everything visible downloads as JSON or CSV. And the one
memory action of the review log (`unmerge`, offered by `templates/review/kinds/memory_log.html`,
the log of this app's queue): undoing the check's merge of a memory into one saying the same.
Every write goes through `apps.memory.services`."""

from __future__ import annotations

import csv
import io
import json

from django.contrib import messages
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from apps.core.surfaces import web
from apps.core.surfaces.web import came_from, domain_errors, reported
from apps.memory import services as memory
from apps.memory.contracts import MemoryForget, MemoryNote, MemoryPageFilter, MemoryReview
from apps.memory.forms import MemoryEditForm
from apps.memory.models import Kind
from apps.memory.records import with_relations
from apps.memory.visibility import Reader, can_review_shared, held, usable

PAGE_SIZE = 25


def _listing(principal, f: MemoryPageFilter):
    reader = Reader.of(principal)
    qs = held(reader, "personal") if f.tab == "me" else usable(reader, "shared")
    if f.q:
        qs = qs.filter(text__icontains=f.q)
    return with_relations(qs).select_related("conflicts_with").order_by("-updated_at", "-id")


@domain_errors
def index(request):
    principal = request.principal
    memory.ensure_user(principal)
    f = web.query(request, MemoryPageFilter)
    paging = web.paged(request, PAGE_SIZE)
    qs = _listing(principal, f)
    total = qs.count()
    rows = list(qs[paging.offset : paging.offset + PAGE_SIZE])
    context = {
        "tab": f.tab,
        "memories": rows,
        "total": total,
        "query": f.q or "",
        "page_obj": paging.page(total),
        "querystring": web.querystring_without_page(request),
        "may_change_office": can_review_shared(principal),
        "kinds": Kind.choices,
        "return_to": request.get_full_path(),
    }
    partial = request.htmx and request.htmx.target == "memory-list"
    return render(request, "memory/_list.html" if partial else "memory/index.html", context)


def _back(request, default: str | None = None) -> HttpResponseRedirect:
    """Back to the page the form was on (`return_to`, when it is ours), else `default`."""
    return HttpResponseRedirect(web.back_target(request, default or reverse("memory:index"), "return_to"))


@require_POST
def edit(request, memory_id: int):
    form = MemoryEditForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return _back(request)
    with reported(request) as outcome:
        memory.update(request.principal, memory_id, form.validated)
    if not outcome.failed:
        messages.success(request, _("Saved."))
    return _back(request)


@require_POST
def decide(request, memory_id: int):
    """The holder's own decision on a personal memory waiting for them."""
    with reported(request) as outcome:
        # Only the decision is read: the holder approves or rejects, editing is the edit form's.
        memory.review(request.principal, memory_id, web.posted(request, MemoryReview, decision="decision"))
    if not outcome.failed:
        messages.success(request, _("Saved."))
    return _back(request)


@require_POST
def forget(request, memory_id: int):
    """Personal memory is deleted for good; office memory (reviewers only) is retracted: it never
    reaches a model again but stays in the audit."""
    scope = None
    with reported(request) as outcome:
        scope = web.posted(request, MemoryForget).scope
        if scope == "shared":
            memory.retract(request.principal, memory_id, note=_("Retracted on the memory page"))
        else:
            memory.forget(request.principal, memory_id)
    if not outcome.failed:
        messages.success(request, _("Retracted.") if scope == "shared" else _("Deleted for good."))
    return _back(request)


@require_POST
def forget_all(request):
    with reported(request) as outcome:
        count = memory.forget_all(request.principal)
    if not outcome.failed:
        message = ngettext(
            "%(n)d personal memory deleted for good.", "%(n)d personal memories deleted for good.", count
        )
        messages.success(request, message % {"n": count})
    return redirect("memory:index")


# --- the review log's undo --------------------------------------------------------------------
DECIDED_LOG = "/pruefen/?kind=memory&state=decided"


@require_POST
def unmerge(request, memory_id: int):
    with reported(request) as outcome:
        memory.unmerge(request.principal, memory_id, note=web.posted(request, MemoryNote).note)
    if not outcome.failed:
        messages.success(request, _("The merge was undone: the memory stands on its own again."))
    return _back(request, came_from(request, DECIDED_LOG))


# --- export -----------------------------------------------------------------------------------
CSV_COLUMNS = (
    "section",
    "id",
    "kind",
    "scope",
    "text",
    "review",
    "assertion",
    "client",
    "case",
    "person",
    "source",
    "valid_from",
    "valid_until",
    "created_at",
)


def _filename(extension: str) -> str:
    return f"clapilot-gedaechtnis-{timezone.localdate().isoformat()}.{extension}"


@domain_errors
def export_json(request):
    data = memory.export_for(request.principal)
    response = HttpResponse(
        json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{_filename("json")}"'
    return response


def _cell(value) -> str:
    """Spreadsheets run a cell that starts with = + - @ as a formula: such text is quoted."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _csv_row(section: str, record: dict) -> list[str]:
    subject = record.get("subject") or {}
    client, case, person = subject.get("client"), subject.get("case"), subject.get("person")
    source = record.get("source") or {}
    values = {
        **record,
        "section": section,
        "client": client and client.get("name"),
        "case": case and case.get("reference"),
        "person": person and (person.get("name") or person.get("email")),
        "source": ":".join(filter(None, (source.get("kind"), source.get("ref")))),
    }
    return [_cell(values.get(column)) for column in CSV_COLUMNS]


@domain_errors
def export_csv(request):
    data = memory.export_for(request.principal)
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";")
    writer.writerow(CSV_COLUMNS)
    for section in ("personal", "office"):
        for record in data[section]:
            writer.writerow(_csv_row(section, record))
    response = HttpResponse("\ufeff" + out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_filename("csv")}"'
    return response
