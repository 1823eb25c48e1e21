"""The notifications page, the header bell's fragment and the mark-read actions. Every change goes
through `apps.notifications.services`; the bell's script refetches the fragment on live events."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from apps.core.surfaces.web import came_from, page_number, query
from apps.notifications import services
from apps.notifications.contracts import NotificationsPageFilter
from apps.notifications.models import Notification

PAGE_SIZE = 25


@require_GET
def index(request):
    unread_only = query(request, NotificationsPageFilter).filter == "unread"
    qs = services.for_person(request.principal, unread_only=unread_only)
    page = Paginator(qs, PAGE_SIZE).get_page(page_number(request))
    context = {
        "page": page,
        "notes": list(page.object_list),
        "unread_only": unread_only,
        "unread": services.unread_count(request.principal),
        "querystring": "filter=unread" if unread_only else "",
    }
    return render(request, "notifications/index.html", context)


@require_GET
def bell(request):
    """The bell's inner HTML (count and newest items), fetched again on every live event."""
    return render(request, "notifications/_bell_panel.html", {"bell": services.bell(request.principal)})


@require_POST
def read(request, note_id: int):
    services.mark_read(request.principal, [note_id])
    return _answer(request)


@require_POST
def read_all(request):
    services.mark_all_read(request.principal)
    return _answer(request)


@require_GET
def open_note(request, note_id: int):
    """Follow a notification's link, marking it read. Only links on this server are followed;
    anything else (or no link) lands on the notifications page."""
    note = services.for_person(request.principal).filter(pk=note_id).first()
    if note is None:
        raise Http404
    services.mark_read(request.principal, [note.pk])
    target = _local(request, note)
    return redirect(target or "notifications:index")


def _local(request, note: Notification) -> str:
    url = note.url or ""
    local = url.startswith("/") and not url.startswith("//")
    if local and url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()}):
        return url
    return ""


def _answer(request):
    if request.headers.get("HX-Request") or "application/json" in request.headers.get("Accept", ""):
        return render(request, "notifications/_bell_panel.html", {"bell": services.bell(request.principal)})
    return redirect(came_from(request, default=reverse("notifications:index")))
