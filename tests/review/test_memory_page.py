"""„Was Clapilot sich merkt“: a person sees their own memory and the office's approved memory,
never another person's; edits and forgets their own (hard delete); only reviewers change or
retract the office's; export as JSON and CSV of what they may see."""

import csv
import io
import json

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

PAGE = reverse("memory:index")


def remember(principal, text, source_kind="person", **kw):
    origin = Origin(surface="agent", run_id="run-1") if source_kind == "chat_run" else INTERNAL
    return memory.store(principal, build(MemoryStore, text=text, **kw), origin=origin).memory


@pytest.fixture
def memories(as_anna, as_ben, as_chef):
    return {
        "anna": remember(as_anna, "Ich mag kurze Antworten.", scope="personal", kind="preference"),
        "ben": remember(as_ben, "Ben trinkt keinen Kaffee.", scope="personal"),
        "office": remember(as_chef, "Die Kanzlei schließt freitags um 14 Uhr."),
        "pending": remember(as_anna, "Der Drucker ist kaputt.", source_kind="chat_run"),
    }


def test_the_page_shows_mine_and_the_offices_approved_memory(client, anna, memories):
    client.force_login(anna)
    mine = client.get(PAGE).content.decode()
    assert "Ich mag kurze Antworten." in mine and "Ben trinkt" not in mine
    office = client.get(PAGE, {"tab": "office"}).content.decode()
    assert "Die Kanzlei schließt freitags" in office
    assert "Der Drucker ist kaputt." not in office  # waits for review
    assert "Ben trinkt" not in office
    assert "kurze" in client.get(PAGE, {"q": "kurze"}).content.decode()
    assert "Ich mag" not in client.get(PAGE, {"q": "kaffee"}).content.decode()


def test_empty_state_and_pagination(client, anna, as_anna):
    client.force_login(anna)
    assert 'class="empty card"' in client.get(PAGE).content.decode()
    for i in range(27):
        remember(as_anna, f"Notiz {i:02d}: Akte {i} liegt im Schrank {i}.", scope="personal", kind="note")
    first = client.get(PAGE).content.decode()
    assert first.count('class="card review-item"') == 25
    assert client.get(PAGE, {"page": 2}).content.decode().count('class="card review-item"') == 2


def test_edit_and_forget_my_memory(client, anna, memories):
    client.force_login(anna)
    mine = memories["anna"]
    client.post(
        reverse("memory:edit", args=[mine.pk]),
        {"text": "Ich mag sehr kurze Antworten.", "kind": "preference"},
    )
    mine.refresh_from_db()
    assert mine.text == "Ich mag sehr kurze Antworten."
    assert MemoryRevision.objects.filter(memory=mine, action="updated", actor=anna).exists()
    client.post(reverse("memory:forget", args=[mine.pk]), {"scope": "personal"})
    assert not Memory.objects.filter(pk=mine.pk).exists()
    assert not MemoryRevision.objects.filter(memory_id=mine.pk).exists()  # nothing left behind


def test_nobody_edits_or_forgets_another_persons_memory(client, anna, memories):
    client.force_login(anna)
    bens = memories["ben"]
    client.post(reverse("memory:edit", args=[bens.pk]), {"text": "Ben trinkt Tee.", "kind": "fact"})
    client.post(reverse("memory:forget", args=[bens.pk]), {"scope": "personal"})
    bens.refresh_from_db()
    assert bens.text == "Ben trinkt keinen Kaffee."


def test_only_reviewers_change_or_retract_office_memory(client, anna, chef, memories):
    office = memories["office"]
    client.force_login(anna)
    assert "Retract" not in client.get(PAGE, {"tab": "office"}).content.decode()
    client.post(reverse("memory:forget", args=[office.pk]), {"scope": "shared"})
    client.post(reverse("memory:forget", args=[office.pk]), {"scope": "personal"})
    client.post(reverse("memory:edit", args=[office.pk]), {"text": "Offen bis 20 Uhr.", "kind": "fact"})
    office.refresh_from_db()
    assert (office.assertion, office.text) != ("retracted", "Offen bis 20 Uhr.")
    assert office.assertion != "retracted" and office.text == "Die Kanzlei schließt freitags um 14 Uhr."
    client.force_login(chef)
    client.post(reverse("memory:forget", args=[office.pk]), {"scope": "shared"})
    office.refresh_from_db()
    assert office.assertion == "retracted"  # kept for the audit, never used again


def test_forget_everything_about_me(client, anna, memories):
    client.force_login(anna)
    client.post(reverse("memory:forget-all"))
    assert not Memory.objects.filter(owner=anna).exists()
    assert Memory.objects.filter(pk=memories["ben"].pk).exists()


def test_export_json_and_csv_hold_only_what_i_may_see(client, anna, memories):
    client.force_login(anna)
    response = client.get(reverse("memory:export-json"))
    assert response["Content-Disposition"].startswith("attachment;")
    data = json.loads(response.content)
    assert [m["text"] for m in data["personal"]] == ["Ich mag kurze Antworten."]
    assert "Ben trinkt" not in response.content.decode()
    exported = client.get(reverse("memory:export-csv"))
    rows = list(csv.DictReader(io.StringIO(exported.content.decode("utf-8-sig")), delimiter=";"))
    assert [(r["section"], r["text"]) for r in rows if r["section"] == "personal"] == [
        ("personal", "Ich mag kurze Antworten.")
    ]
    assert all("Ben" not in r["text"] for r in rows)


def test_csv_export_defuses_formulas(client, anna, as_anna):
    remember(as_anna, '=HYPERLINK("http://evil") ist mein Lieblingslink', scope="personal")
    client.force_login(anna)
    text = client.get(reverse("memory:export-csv")).content.decode("utf-8-sig")
    assert "'=HYPERLINK" in text


def test_memory_page_queries_are_constant_in_rows(client, anna, as_anna, meier):
    client.force_login(anna)
    remember(as_anna, "Notiz 0 zu Meier.", scope="personal", subject_client_id=meier.pk)
    with CaptureQueriesContext(connection) as few:
        client.get(PAGE)
    for i in range(1, 8):
        remember(as_anna, f"Notiz {i} zu Meier: Schrank {i}.", scope="personal", subject_client_id=meier.pk)
    with CaptureQueriesContext(connection) as many:
        client.get(PAGE)
    assert len(many) == len(few)


def test_i_decide_a_contradiction_of_my_own_memory(client, anna, as_anna):
    old = remember(as_anna, "Mein Büro ist in Raum 12.", scope="personal")
    new = memory.store(as_anna, build(MemoryStore, text="Mein Büro ist in Raum 14.", scope="personal"))
    new.memory.refresh_from_db()  # checked by the worker (at once here)
    assert (new.memory.conflicts_with_id, new.memory.review) == (old.pk, "pending")
    client.force_login(anna)
    page = client.get(PAGE).content.decode()
    assert reverse("memory:decide", args=[new.memory.pk]) in page
    client.post(reverse("memory:decide", args=[new.memory.pk]), {"decision": "approve"})
    new.memory.refresh_from_db()
    old.refresh_from_db()
    assert new.memory.review == "approved" and old.assertion == "retracted"


def test_bad_page_input_is_reported_and_left_out(client, anna, memories):
    """Filters go through `MemoryPageFilter`, small POSTs through their input models: a bad value
    is a message on the page, never a 500 and never a silent other action."""
    client.force_login(anna)
    response = client.get(PAGE, {"tab": "everyone", "q": "kurze"}, follow=True)
    html = response.content.decode()
    assert response.status_code == 200 and "Ich mag kurze Antworten." in html  # tab "me", q kept
    assert [m.level_tag for m in response.context["messages"]] == ["error"]
    mine = memories["anna"]
    response = client.post(reverse("memory:forget", args=[mine.pk]), {"scope": "all"}, follow=True)
    assert [m.level_tag for m in response.context["messages"]] == ["error"]
    assert Memory.objects.filter(pk=mine.pk).exists()
    unmerge = reverse("memory:unmerge", args=[mine.pk])
    response = client.post(unmerge, {"note": "x" * 2000, "return_to": PAGE}, follow=True)
    assert [str(m).split(":")[0] for m in response.context["messages"]] == ["note"]  # refused for the note
