"""Live events of the Mandanten domain. Clients and cases are office-wide, so every change is one
all-users row (see `apps.mutations.audience`)."""

from __future__ import annotations

from apps.clients.contracts import CaseOut, ClientOut
from apps.clients.models import Case, Client
from apps.clients.visibility import viewers
from apps.mutations.audience import announced_upsert, send

LIST = "clients"
TOPIC = "mandanten.client.updated"
CASES_LIST = "cases"
CASES_TOPIC = "cases.case.updated"


def client_changed(client: Client, announce_key: str) -> None:
    send(viewers(), TOPIC, announced_upsert(LIST, ClientOut.record(client), announce_key))


def case_changed(case: Case, announce_key: str) -> None:
    send(viewers(), CASES_TOPIC, announced_upsert(CASES_LIST, CaseOut.record(case), announce_key))
