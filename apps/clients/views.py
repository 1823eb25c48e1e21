"""Server-rendered Mandanten pages: list with search, create form, client page with its cases and
an editor. Every write goes through `apps.clients.services`; views only parse input and render."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.clients import services
from apps.clients.errors import ClientNotFound, InvalidClientInput
from apps.clients.forms import ClientForm
from apps.clients.models import Client
from apps.core.errors import DomainError

PAGE_SIZE = 50


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


@login_required
def detail_page(request, client_id: int):
    principal = _principal(request)
    try:
        client = services.get_client(principal, client_id)
    except ClientNotFound:
        raise Http404(_("This client does not exist.")) from None
    form = ClientForm(people=_people(), client=client)
    if request.method == "POST":
        form = ClientForm(request.POST, people=_people(), client=client)
        if form.is_valid():
            changes = form.changed_against_baseline()
            try:
                if changes:
                    services.update_client(principal, client.pk, changes)
            except DomainError as exc:
                _form_errors(form, exc)
            else:
                messages.success(request, _("Saved."))
                return redirect("clients:detail", client_id=client.pk)
    cases, case_total = services.list_cases(principal, client_id=client.pk, limit=services.MAX_PAGE)
    context = {"client": client, "form": form, "cases": cases, "case_total": case_total}
    return render(request, "clients/detail.html", context)
