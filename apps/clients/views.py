"""Server-rendered Mandanten pages: list with search, create form, and the client page (the
office's most used view: everything linked to the client, live, with a version-checked editor).
Every write goes through the services; views only parse input and render."""

from __future__ import annotations

import datetime as dt
import functools

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.clients import services
from apps.clients.errors import ClientNotFound, InvalidClientInput, VersionConflict
from apps.clients.forms import ClientForm
from apps.clients.models import Client
from apps.clients.records import client_record
from apps.core.errors import DomainError

PAGE_SIZE = 50
# What the client page shows of each linked kind (the full lists are one click away).
LINKED_TASKS = 50
UPCOMING_DAYS = 180
UPCOMING_EVENTS = 20
DEADLINES = 50
LINKED_DOCUMENTS = 20


def _principal(request) -> Principal:
    return Principal.for_user(request.user)


def _people():
    return get_user_model().objects.filter(is_active=True).order_by("full_name", "email")


def _form_errors(form, exc: DomainError) -> None:
    if isinstance(exc, InvalidClientInput):
        for field, message in (exc.details or {}).get("field_errors", {}).items():
            name = field.removesuffix("_id")
            form.add_error(name if name in form.fields else None, message)
    else:
        form.add_error(None, exc.message)


@login_required
def list_page(request):
    query = (request.GET.get("q") or "").strip()[:200] or None
    status = request.GET.get("status") if request.GET.get("status") in Client.Status.values else None
    try:
        page_number = max(1, int(request.GET.get("page", "1")))
    except ValueError:
        page_number = 1
    clients, total = services.list_clients(
        _principal(request), query=query, status=status, limit=PAGE_SIZE, offset=(page_number - 1) * PAGE_SIZE
    )
    params = request.GET.copy()
    params.pop("page", None)
    context = {
        "clients": clients,
        "total": total,
        "page": Paginator(range(total), PAGE_SIZE).get_page(page_number),
        "filters": request.GET,
        "statuses": Client.Status.choices,
        "querystring": params.urlencode(),
    }
    return render(request, "clients/list.html", context)


@login_required
def create_page(request):
    form = ClientForm(people=_people())
    if request.method == "POST":
        form = ClientForm(request.POST, people=_people())
        if form.is_valid():
            try:
                values = form.all_values()
                client = services.create_client(_principal(request), **values)
            except DomainError as exc:
                _form_errors(form, exc)
            else:
                messages.success(request, _("Client created."))
                return redirect("clients:detail", client_id=client.pk)
    return render(request, "clients/form.html", {"form": form})


def _linked(principal: Principal, client: Client) -> dict:
    """Everything linked to the client that this person may see: open tasks, upcoming
    appointments, Fristen by urgency, cases and documents. A fixed number of queries, whatever
    the client has (each list is one page, fetched with its relations)."""
    from apps.calendar import services as calendar
    from apps.calendar.records import countdown_days, is_critical_soon
    from apps.tasks import services as tasks

    open_tasks, open_task_total = tasks.list_tasks(
        principal, client_id=client.pk, unfinished=True, limit=LINKED_TASKS
    )
    now = timezone.now()
    upcoming, upcoming_total = calendar.list_events(
        principal,
        start=now,
        end=now + dt.timedelta(days=UPCOMING_DAYS),
        kind="event",
        client_id=client.pk,
        limit=UPCOMING_EVENTS,
    )
    deadlines = []
    for event in calendar.list_deadlines(principal, client_id=client.pk, limit=DEADLINES):
        days = countdown_days(event)
        deadlines.append(
            {"event": event, "countdown": days, "overdue": -days, "critical": is_critical_soon(event, days)}
        )
    cases, case_total = services.list_cases(principal, client_id=client.pk, limit=services.MAX_PAGE)
    documents, document_total = _documents(principal, client)
    return {
        "open_tasks": open_tasks,
        "open_task_total": open_task_total,
        "upcoming": upcoming,
        "upcoming_total": upcoming_total,
        "upcoming_days": UPCOMING_DAYS,
        "deadlines": deadlines,
        "cases": cases,
        "case_total": case_total,
        "documents": documents,
        "document_total": document_total,
    }


@functools.cache
def _documents_ready() -> bool:
    """Whether the documents app links documents to clients and has its tables (checked once per
    process, from the code and the migration files, without a query)."""
    try:
        from apps.documents.models import Document
        from apps.documents.services import list_documents  # noqa: F401
    except ImportError:
        return False
    if not any(f.name == "clients" for f in Document._meta.get_fields()):
        return False
    from django.db.migrations.loader import MigrationLoader

    return any(app == "documents" for app, _name in MigrationLoader(None).disk_migrations)


def _documents(principal: Principal, client: Client) -> tuple[list | None, int]:
    """The client's documents, or None while the documents app cannot list them yet (the page
    then shows its empty "documents" section hook)."""
    if not _documents_ready():
        return None, 0
    from apps.documents.services import list_documents

    return list_documents(principal, client_id=client.pk, limit=LINKED_DOCUMENTS)


def _rebased_after_conflict(form: ClientForm, current: Client) -> ClientForm:
    """A stale save was refused: keep what the user typed in the fields they changed, show the
    current value everywhere else, and move the baseline and version to the current record, so
    saving again stores exactly the user's own edits on top of the other change."""
    data = form.data.copy()
    now = ClientForm.values_of(current)
    for name, value in now.items():
        submitted = data.get(name, "").replace("\r\n", "\n")
        base = data.get(f"base_{name}", submitted).replace("\r\n", "\n")
        if submitted == base:
            data[name] = value
        data[f"base_{name}"] = value
    data["version"] = str(current.version)
    return ClientForm(data, people=form.people, client=current)


@login_required
def detail_page(request, client_id: int):
    principal = _principal(request)
    try:
        client = services.get_client(principal, client_id)
    except ClientNotFound:
        raise Http404(_("This client does not exist.")) from None
    people = list(_people())
    form = ClientForm(people=people, client=client)
    if request.method == "POST":
        form = ClientForm(request.POST, people=people, client=client)
        if form.is_valid():
            changes = form.changed_against_baseline()
            try:
                if changes:
                    services.update_client(
                        principal, client.pk, changes, expected_version=form.cleaned_data.get("version")
                    )
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
                _form_errors(form, exc)
            else:
                messages.success(request, _("Saved."))
                return redirect("clients:detail", client_id=client.pk)
    context = {"client": client, "record": client_record(client), "form": form, **_linked(principal, client)}
    return render(request, "clients/detail.html", context)
