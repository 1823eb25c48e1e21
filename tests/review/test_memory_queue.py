"""Memories in the review queue: what an agent or API key stored for the office waits for a
reviewer; conflicts show beside the approved memory; decisions are audited; the admin's queue
decides through the same service."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.core.inputs import build
from apps.core.origin import INTERNAL, Origin
from apps.memory import services as memory
from apps.memory.contracts import MemoryStore
from apps.memory.models import Memory, MemoryRevision

pytestmark = pytest.mark.django_db

QUEUE = reverse("review:queue")
DECIDE = reverse("review:decide")
ADMIN_QUEUE = reverse("admin:review_reviewqueue_changelist")


def remember(principal, text, source_kind="chat_run", **kw):
    """As the copilot would, in a chat of `principal`."""
    origin = Origin(surface="agent", run_id="run-1") if source_kind == "chat_run" else INTERNAL
    return memory.store(principal, build(MemoryStore, text=text, **kw), origin=origin).memory


def test_office_memory_from_staff_waits_for_review_and_is_approved(client, reviewer, as_anna):
    pending = remember(as_anna, "Die Kanzlei ist am 24.12. geschlossen.")
    assert pending.review == "pending"
    client.force_login(reviewer)
    page = client.get(QUEUE, {"kind": "memory"}).content.decode()
    assert "Die Kanzlei ist am 24.12. geschlossen." in page and "Anna Berger" in page
    client.post(DECIDE, {"kind": "memory", "ids": [pending.pk], "decision": "approve", "note": "stimmt"})
    pending.refresh_from_db()
    assert pending.review == "approved" and pending.reviewed_by == reviewer
    audit = MemoryRevision.objects.get(memory=pending, action="approved")
    assert (audit.actor, audit.before["review"], audit.after["review"], audit.note) == (
        reviewer,
        "pending",
        "approved",
        "stimmt",
    )
    log = client.get(QUEUE, {"kind": "memory", "state": "decided"}).content.decode()
    assert "Rita Prüfer" in log and "stimmt" in log


def test_edit_then_approve_and_bulk_reject(client, chef, as_anna):
    edit = remember(as_anna, "Frau Meier ist Ansprechpartnerin für Lohn.")
    first = remember(as_anna, "Der Parkplatz hinten gehört zur Kanzlei.")
    second = remember(as_anna, "Kaffee gibt es im zweiten Stock.")
    client.force_login(chef)
    client.post(
        DECIDE,
        {
            "kind": "memory",
            "ids": [edit.pk],
            "decision": "edit",
            "text": "Frau Meier-Lang ist Ansprechpartnerin für Lohn.",
        },
    )
    client.post(DECIDE, {"kind": "memory", "ids": [first.pk, second.pk], "decision": "reject"})
    rows = {m.pk: (m.review, m.text) for m in Memory.objects.all()}
    assert rows[edit.pk] == ("approved", "Frau Meier-Lang ist Ansprechpartnerin für Lohn.")
    assert rows[first.pk][0] == rows[second.pk][0] == "rejected"
    edited = MemoryRevision.objects.get(memory=edit, action="edited")
    assert edited.before["text"] == "Frau Meier ist Ansprechpartnerin für Lohn."


def test_a_conflict_shows_beside_the_approved_memory(client, chef, as_chef, as_anna):
    approved = remember(as_chef, "Die Kanzlei öffnet um 8 Uhr.", source_kind="person")
    assert approved.review == "approved"
    stored = memory.store(as_anna, build(MemoryStore, text="Die Kanzlei öffnet um 9 Uhr."))
    assert Memory.objects.get(pk=stored.memory.pk).conflicts_with_id == approved.pk
    client.force_login(chef)
    page = client.get(QUEUE, {"kind": "conflict"}).content.decode()
    assert "Die Kanzlei öffnet um 8 Uhr." in page and "Die Kanzlei öffnet um 9 Uhr." in page
    assert "review-compare" in page
    assert "Die Kanzlei öffnet um 9 Uhr." not in client.get(QUEUE, {"kind": "memory"}).content.decode()
    client.post(DECIDE, {"kind": "conflict", "ids": [stored.memory.pk], "decision": "approve"})
    approved.refresh_from_db()
    assert approved.assertion == "retracted"


def test_filters_narrow_the_queue(client, chef, as_anna, meier):
    remember(as_anna, "Meier GmbH zahlt immer pünktlich.", subject_client_id=meier.pk)
    remember(as_anna, "Im Archiv liegt der Schlüssel im Kasten.")
    client.force_login(chef)
    about_client = client.get(QUEUE, {"kind": "memory", "subject": "client"}).content.decode()
    assert "Meier GmbH zahlt" in about_client and "Archiv" not in about_client
    searched = client.get(QUEUE, {"kind": "memory", "q": "archiv"}).content.decode()
    assert "Archiv" in searched and "Meier GmbH zahlt" not in searched
    assert "Archiv" not in client.get(QUEUE, {"kind": "memory", "age": "older"}).content.decode()
    assert "Archiv" in client.get(QUEUE, {"kind": "memory", "source": "chat_run"}).content.decode()
    assert "Archiv" not in client.get(QUEUE, {"kind": "memory", "source": "document"}).content.decode()
    assert client.get(QUEUE, {"kind": "memory", "age": "forever"}).status_code == 200  # dropped, reported


def test_personal_memory_of_others_never_appears(client, chef, as_anna):
    mine = remember(as_anna, "Ich mag kurze Antworten.", scope="personal")
    client.force_login(chef)
    assert "kurze Antworten" not in client.get(QUEUE, {"kind": "memory"}).content.decode()
    client.post(DECIDE, {"kind": "memory", "ids": [mine.pk], "decision": "reject"})
    mine.refresh_from_db()
    assert mine.review == "approved"


def test_the_admin_queue_decides_through_the_service(client, chef, as_anna, anna):
    pending = remember(as_anna, "Die Kanzlei ist am 24.12. geschlossen.")
    client.force_login(chef)
    page = client.get(ADMIN_QUEUE, {"kind": "memory"})
    assert page.status_code == 200 and "Die Kanzlei ist am 24.12. geschlossen." in page.content.decode()
    response = client.post(
        ADMIN_QUEUE,
        {
            "kind": "memory",
            "ids": [pending.pk],
            "decision": "approve",
            "return_to": ADMIN_QUEUE + "?kind=memory",
        },
    )
    assert response.status_code == 302 and response["Location"] == ADMIN_QUEUE + "?kind=memory"
    pending.refresh_from_db()
    assert pending.review == "approved"
    assert MemoryRevision.objects.filter(memory=pending, action="approved", actor=chef).exists()
    client.force_login(anna)  # no admin: no admin queue
    assert client.get(ADMIN_QUEUE).status_code in (302, 403)


def test_memory_queue_queries_are_constant_in_rows(client, chef, as_anna, meier):
    client.force_login(chef)
    for i in range(2):
        remember(as_anna, f"Regel {i}: Akten werden freitags abgelegt.", subject_client_id=meier.pk)
    with CaptureQueriesContext(connection) as few:
        client.get(QUEUE, {"kind": "memory"})
    for i in range(2, 9):
        remember(as_anna, f"Regel {i}: Akten werden freitags abgelegt.", subject_client_id=meier.pk)
    with CaptureQueriesContext(connection) as many:
        client.get(QUEUE, {"kind": "memory"})
    assert len(many) == len(few)
