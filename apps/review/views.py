"""The review page for staff with a review permission (admins always): one tab per queue, open
items or the decisions taken (the audit), filters, pagination, bulk decisions, live refresh.
Every decision goes through `apps.review.services.decide`, i.e. the domains' services."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from apps.core.errors import DomainError
from apps.core.surfaces import web
from apps.review import services
from apps.review.contracts import DecidePosted, QueueFilter
from apps.review.errors import NotAReviewer

PAGE_SIZE = 20


def queue_context(request, principal, *, decide_url: str) -> dict:
    """Everything the queue fragment shows; shared by the staff page and the admin view. The
    filters come through `QueueFilter`: an invalid one is reported on the page and left out."""
    kinds = services.require_reviewer(principal)
    f = web.query(request, QueueFilter)
    counts = {kind.key: kind.count(principal) for kind in kinds}
    kind = next((k for k in kinds if k.key == f.kind), None)
    if kind is None:  # the first queue with something waiting
        kind = next((k for k in kinds if counts[k.key] and k.waiting), kinds[0])
        f = f.model_copy(update={"kind": kind.key})
    number = web.page_number(request)
    offset = (number - 1) * PAGE_SIZE
    listing = kind.decided if f.state == "decided" else kind.pending
    items, total = listing(principal, f, limit=PAGE_SIZE, offset=offset)
    # The pagination links carry the filters in use (the queue's key included).
    params = {name: value for name, value in f.model_dump().items() if value not in ("", None)}
    return {
        "kinds": [{"kind": k, "count": counts[k.key], "active": k is kind} for k in kinds],
        "topics": sorted({k.topic for k in kinds}),
        "kind": kind,
        "filter": f,
        "items": items,
        "item_template": kind.log_template if f.state == "decided" else kind.template,
        "total": total,
        "page_obj": Paginator(range(total), PAGE_SIZE).get_page(number),
        "querystring": urlencode(params),
        "decide_url": decide_url,
        "return_to": request.get_full_path(),
    }


def queue(request):
    try:
        context = queue_context(request, request.principal, decide_url=reverse("review:decide"))
    except NotAReviewer as exc:
        raise PermissionDenied(exc.message) from None
    partial = request.htmx and request.htmx.target == "review-queue"
    return render(request, "review/_queue.html" if partial else "review/queue.html", context)


def decide_from_post(request) -> None:
    """Parse and carry out one (bulk) decision; report what happened as messages."""
    try:
        data = web.posted_form(request, DecidePosted)
    except DomainError as exc:
        if "ids" in {name.split(".")[0] for name in exc.field_errors}:
            messages.error(request, _("Please select at least one item."))
        else:
            messages.error(request, _("The decision could not be read; please try again."))
        return
    try:
        outcome = services.decide(request.principal, data)
    except NotAReviewer as exc:
        raise PermissionDenied(exc.message) from None
    except DomainError as exc:
        messages.error(request, exc.message)
        return
    if outcome.decided:
        n = len(outcome.decided)
        messages.success(request, ngettext("%(n)d item decided.", "%(n)d items decided.", n) % {"n": n})
    for item_id, message in outcome.refused:
        messages.error(request, f"#{item_id}: {message}")


def back_to(request, default: str) -> HttpResponseRedirect:
    return HttpResponseRedirect(web.back_target(request, default, "return_to"))


@require_POST
def decide(request):
    decide_from_post(request)
    return back_to(request, reverse("review:queue"))
