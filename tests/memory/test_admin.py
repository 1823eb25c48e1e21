"""The admin: the office's memory, decided and changed through the services; never other people's
personal memory."""

import pytest

from apps.core.inputs import build
from apps.core.origin import Origin
from apps.memory import services
from apps.memory.contracts import MemoryStore
from apps.memory.models import Memory

pytestmark = pytest.mark.django_db


def test_admin_lists_office_memory_but_not_other_peoples_personal_memory(client, boss, as_boss, as_anna):
    shared = services.store(
        as_anna,
        build(MemoryStore, text="Das Büro ist am 24.12. geschlossen."),
        origin=Origin(surface="agent", run_id="1"),
    ).memory
    private = services.store(
        as_anna, build(MemoryStore, text="Anna hat einen Arzttermin am Montag.", scope="personal")
    ).memory
    client.force_login(boss)
    page = client.get("/admin/memory/memory/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "Das Büro ist am 24.12. geschlossen." in body and "Arzttermin" not in body
    assert client.get(f"/admin/memory/memory/{private.pk}/change/").status_code in (302, 404)
    assert client.get(f"/admin/memory/memory/{shared.pk}/change/").status_code == 200
    assert client.get("/admin/memory/memory/add/").status_code == 403


def test_admin_actions_decide_through_the_service(client, boss, as_anna):
    pending = services.store(
        as_anna,
        build(MemoryStore, text="Das Büro ist am 24.12. geschlossen."),
        origin=Origin(surface="agent", run_id="1"),
    ).memory
    client.force_login(boss)
    response = client.post(
        "/admin/memory/memory/", {"action": "approve", "_selected_action": [pending.pk]}, follow=True
    )
    assert response.status_code == 200
    pending.refresh_from_db()
    assert (pending.review, pending.reviewed_by_id) == ("approved", boss.pk)
    assert pending.revisions.filter(action="approved").exists()


def test_admin_edit_goes_through_update_and_refuses_bad_text(client, boss, as_boss):
    memory = services.store(as_boss, build(MemoryStore, text="Die Kanzlei hat 12 Parkplätze.")).memory
    client.force_login(boss)
    url = f"/admin/memory/memory/{memory.pk}/change/"
    form = {"text": "Die Kanzlei hat 14 Parkplätze.", "kind": "fact", "valid_from_0": "", "valid_from_1": ""}
    form |= {"valid_until_0": "", "valid_until_1": ""}
    sources = {"sources-TOTAL_FORMS": "1", "sources-INITIAL_FORMS": "1"}
    revisions = {"revisions-TOTAL_FORMS": "2", "revisions-INITIAL_FORMS": "2"}
    assert client.post(url, form | sources | revisions).status_code == 302
    memory.refresh_from_db()
    assert (
        memory.text == "Die Kanzlei hat 14 Parkplätze." and memory.revisions.filter(action="updated").exists()
    )
    refused = client.post(url, form | {"text": "x" * 2001} | sources | revisions)
    assert refused.status_code == 200 and "2000" in refused.content.decode()
    assert Memory.objects.get(pk=memory.pk).text == "Die Kanzlei hat 14 Parkplätze."
