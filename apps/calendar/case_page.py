"""The case page's calendar sections and the client page's open Fristen per case (extension
points `clients.case_sections` and `clients.case_open_items`, declared in `apps.calendar.apps`);
the sections are the client page's, filtered by the case (`client_page`)."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import ngettext

from apps.accounts.principal import Principal
from apps.calendar import services
from apps.calendar.client_page import TOPICS, appointments_section, deadlines_section
from apps.clients.case_page import OpenItems, Section
from apps.clients.models import Case


def deadlines(principal: Principal, case: Case) -> Section:
    return deadlines_section(principal, "calendar/_case_page_deadlines.html", case_id=case.pk)


def appointments(principal: Principal, case: Case) -> Section:
    return appointments_section(principal, "calendar/_case_page_appointments.html", case_id=case.pk)


def _describe(count: int) -> str:
    return ngettext("%(count)d open deadline", "%(count)d open deadlines", count) % {"count": count}


def open_items(principal: Principal, case_ids: Sequence[int]) -> OpenItems:
    return OpenItems(
        "deadlines",
        services.open_deadline_counts(principal, list(case_ids)),
        _describe,
        order=10,
        live_topics=TOPICS,
    )
