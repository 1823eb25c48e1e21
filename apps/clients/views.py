"""Server-rendered Mandanten pages: list with search, create form, and the client page (the
office's most used view: everything linked to the client, live, with a version-checked editor).
Every write goes through the services; views only parse input and render. What the client page
shows of other domains (tasks, Fristen, appointments, documents …) comes from their sections
(`apps.clients.page`): this app imports none of them."""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.clients import case_links, case_page, page, services
from apps.clients.contracts import (
    CaseCreate,
    CaseEdit,
    CaseFilter,
    CaseLinkPick,
    CaseOut,
    ClientEdit,
    ClientFilter,
    ClientOut,
    ClientPageCreate,
)
from apps.clients.errors import CaseNotFound
from apps.clients.forms import CaseForm, ClientEditForm, ClientForm
from apps.clients.models import Case, Client
from apps.core.errors import DomainError, VersionConflict
from apps.core.surfaces import web
from apps.core.surfaces.web import domain_errors, form_errors, querystring_without_page, reported

PAGE_SIZE = 50


def _people():
    return get_user_model().objects.filter(is_active=True).order_by("full_name", "email")


def list_page(request):
    """Clients by name, filtered like the REST list (`ClientFilter`: `?q=`, `?status=`)."""
    return _listing(
        request, "clients/list.html", ClientFilter, services.list_clients, "clients", Client.Status
    )


def _listing(request, template: str, model, lister, name: str, statuses) -> HttpResponse:
    """A paginated list page of this app: the rows `lister` finds through the REST list's filter
    `model`, under `name`, with the `statuses` (choices) to filter by."""
    paging = web.paged(request, PAGE_SIZE)
    filters = web.query(request, model, **paging.window)
    rows, total = lister(request.principal, filters)
    context = {
        name: rows,
        "total": total,
        "page": paging.page(total),
        "filters": filters,
        "statuses": statuses.choices,
        "querystring": querystring_without_page(request),
    }
    return render(request, template, context)


def create_page(request):
    form = ClientForm(web.submitted(request), people=_people())
    if form.is_bound and form.is_valid():
        try:
            client = services.create_client(request.principal, cast(ClientPageCreate, form.validated))
        except DomainError as exc:
            form_errors(form, exc)
        else:
            messages.success(request, _("Client created."))
            return redirect("clients:detail", client_id=client.pk)
    return render(request, "clients/form.html", {"form": form})


def _rebased_after_conflict(form: ClientEditForm, current: Client) -> ClientEditForm:
    """A stale save was refused: keep what the user typed in the fields they changed, show the
    current value everywhere else, and move the baseline and version to the current record, so
    saving again stores exactly the user's own edits on top of the other change."""
    data = form.data.copy()
    now = ClientEditForm.values_of(current)
    for name, value in now.items():
        submitted = data.get(name, "").replace("\r\n", "\n")
        base = data.get(f"base_{name}", submitted).replace("\r\n", "\n")
        if submitted == base:
            data[name] = value
        data[f"base_{name}"] = value
    data["version"] = str(current.version)
    return ClientEditForm(data, people=form.people, client=current)


@domain_errors
def detail_page(request, client_id: int):
    principal = request.principal
    client = services.get_client(principal, client_id)
    people = list(_people())
    form = ClientEditForm(web.submitted(request), people=people, client=client)
    if form.is_bound and form.is_valid():
        edit = cast(ClientEdit, form.validated)
        try:
            if edit.changes():
                services.update_client(principal, client.pk, edit)
        except VersionConflict:
            client = services.get_client(principal, client.pk)
            form = _rebased_after_conflict(form, client)
            form.is_valid()
            form.add_error(
                None,
                _(
                    "Someone else changed this client in the meantime. Their changes are shown; "
                    "your own edits are kept. Check them and save again."
                ),
            )
        except DomainError as exc:
            form_errors(form, exc)
        else:
            messages.success(request, _("Saved."))
            return redirect("clients:detail", client_id=client.pk)
    sections = page.sections(principal, client)
    context = {
        "client": client,
        "record": ClientOut.record(client),
        "form": form,
        "sections": sections,
        "linked_topics": page.live_topics(sections),
    }
    return render(request, "clients/detail.html", context)


@require_POST
@domain_errors
def case_neutralize(request, client_id: int, case_id: int):
    """The "always neutralize" switch of one case, on the client page's case list."""
    principal = request.principal
    client = services.get_client(principal, client_id)
    case = services.get_case(principal, case_id)
    if case.client_id != client.pk:
        return redirect("clients:detail", client_id=client.pk)
    with reported(request) as outcome:
        services.update_case(
            principal, case.pk, web.posted(request, CaseEdit, neutralize_always="neutralize_always")
        )
    if not outcome.failed:
        messages.success(request, _("Saved."))
    return redirect("clients:detail", client_id=client.pk)


def case_list_page(request):
    """Every Akte the person may see, newest first, filtered like the REST list (`CaseFilter`)."""
    return _listing(request, "clients/case_list.html", CaseFilter, services.list_cases, "cases", Case.Status)


@domain_errors
def case_create_page(request, client_id: int | None = None):
    """ "Neue Akte", from the case list or (preset) from a client page."""
    principal = request.principal
    client = services.get_client(principal, client_id) if client_id is not None else None
    options = {"clients": services.client_choices(principal), "people": _people()}
    initial = {
        "client": client.pk if client else None,
        "responsible": client.responsible_id if client else None,
    }
    form = CaseForm(web.submitted(request), initial=initial, **options)
    if form.is_bound and form.is_valid():
        try:
            data = cast(CaseCreate, form.validated)
            case = services.create_case(principal, data)
        except DomainError as exc:
            form_errors(form, exc)
        else:
            messages.success(request, _("Case %(reference)s opened.") % {"reference": case.reference})
            return redirect("clients:case", case_id=case.pk)
    return render(request, "clients/case_form.html", {"form": form, "client": client})


@domain_errors
def case_page_view(request, case_id: int, client_id: int | None = None):
    """The case page (Akte): its facts and everything linked to it that the viewer may see, live.
    The sections come from the apps that link rows to cases (`apps.clients.case_page`)."""
    case = services.get_case(request.principal, case_id)
    if client_id is not None and client_id != case.client_id:  # not this client's case
        raise CaseNotFound(_("There is no case with id %(id)s.") % {"id": case_id})
    parts = case_page.parts(request.principal, case)
    context = {
        "case": case,
        "client": case.client,
        "record": CaseOut.record(case),
        "sections": parts.sections,
        "linked_topics": parts.live_topics,
        "link_groups": case_links.groups(request.principal, case),
    }
    return render(request, "clients/case_detail.html", context)


@require_POST
@domain_errors
def case_link(request, case_id: int):
    """Link an existing Frist, task, document or note (the picker's "<kind>:<id>") to the case."""
    case = services.get_case(request.principal, case_id)
    with reported(request) as outcome:
        case_links.link(request.principal, case, web.posted(request, CaseLinkPick).item)
    if not outcome.failed:
        messages.success(request, _("Linked to case %(reference)s.") % {"reference": case.reference})
    return redirect("clients:case", case_id=case.pk)


@require_POST
@domain_errors
def case_status(request, case_id: int):
    """Close or reopen the case from its page; a stale page (someone changed the case) is told so."""
    case = services.get_case(request.principal, case_id)
    with reported(request) as outcome:
        change = web.posted(request, CaseEdit, status="status", version="expected_version")
        services.update_case(request.principal, case.pk, change)
    if not outcome.failed:
        messages.success(request, _("Saved."))
    return redirect("clients:case", case_id=case.pk)
