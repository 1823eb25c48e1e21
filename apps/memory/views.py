"""The one memory action outside the review pages' forms: undoing the check's merge of a memory
into one saying the same, offered in the review log (`templates/review/kinds/memory_log.html`,
the log of this app's queue). Writes through `services.unmerge`."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.core.web import came_from, reported
from apps.memory import services
from apps.memory.models import NOTE_MAX

DECIDED_LOG = "/pruefen/?kind=memory&state=decided"


@require_POST
def unmerge(request, memory_id: int):
    with reported(request) as outcome:
        services.unmerge(request.principal, memory_id, note=request.POST.get("note", "")[:NOTE_MAX])
    if not outcome.failed:
        messages.success(request, _("The merge was undone: the memory stands on its own again."))
    target = request.POST.get("return_to", "")
    if not target.startswith("/") or not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}
    ):
        target = came_from(request, DECIDED_LOG)
    return HttpResponseRedirect(target)
