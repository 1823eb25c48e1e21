"""The Wissen page, its partial, the badge's status feed, the POST actions and the admin screens."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.knowledge import indexing
from apps.knowledge.models import Chunk, ConsentRule, IndexJob, KnowledgeFile
from tests.knowledge.conftest import payload

pytestmark = pytest.mark.django_db


@pytest.fixture
def files(index_now, anna, ben):
    index_now(
        1,
        payload(
            "Annas Notiz zur Erbschaftsteuer.",
            title="Anna Erbschaft",
            scope="personal",
            owner_id=anna.pk,
            path="/Persönlich/anna",
        ),
    )
    index_now(
        2,
        payload(
            "Bens Geheimnis.", title="Ben Geheim", scope="personal", owner_id=ben.pk, path="/Persönlich/ben"
        ),
    )
    index_now(3, payload("Kanzleihandbuch.", title="Handbuch", path="/Kanzlei"))


def test_staff_see_their_own_and_shared_files(client, anna, files):
    client.force_login(anna)
    page = client.get(reverse("knowledge:index"))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Anna Erbschaft" in html and "Handbuch" in html and "Ben Geheim" not in html
    assert 'id="knowledge-badge"' in html  # the badge rides on every page


def test_admins_see_everything(client, boss, files):
    client.force_login(boss)
    html = client.get(reverse("knowledge:index")).content.decode()
    assert "Anna Erbschaft" in html and "Ben Geheim" in html
    assert "Erbschaftsteuer" not in html  # metadata only, never the content


def test_list_page_query_count_is_constant(client, boss, index_now):
    client.force_login(boss)
    index_now(10, payload("Eins.", title="Eins"))
    client.get(reverse("knowledge:index"))
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("knowledge:index"))
    for i in range(11, 18):
        index_now(i, payload(f"Text {i}.", title=f"T{i}", path=f"/Ordner{i}"))
        indexing.index_source("document", 100 + i, payload(f"Läuft {i}.", title=f"L{i}"))
    with CaptureQueriesContext(connection) as many:
        page = client.get(reverse("knowledge:index"))
    assert page.status_code == 200 and "L17" in page.content.decode()
    assert len(many) == len(few)


def test_status_feed_and_cancel(client, anna):
    client.force_login(anna)
    file = indexing.index_source(
        "document", 5, payload("Läuft gerade.", scope="personal", owner_id=anna.pk), requested_by=anna
    )
    status = json.loads(client.get(reverse("knowledge:status")).content)
    assert status["active"] == 1 and status["jobs"][0]["file"] == "document:5"
    job = IndexJob.objects.get(file=file)
    response = client.post(reverse("knowledge:cancel-job", args=[job.pk]), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    job.refresh_from_db()
    assert job.cancel_requested


def test_nobody_cancels_another_users_personal_job(client, anna, ben):
    file = indexing.index_source("document", 6, payload("Privat.", scope="personal", owner_id=anna.pk))
    job = IndexJob.objects.get(file=file)
    client.force_login(ben)
    assert json.loads(client.get(reverse("knowledge:status")).content)["active"] == 0
    response = client.post(reverse("knowledge:cancel-job", args=[job.pk]), HTTP_HX_REQUEST="true")
    assert response.status_code == 404
    job.refresh_from_db()
    assert not job.cancel_requested


def test_consent_switch_from_the_page_purges(client, boss, files):
    client.force_login(boss)
    response = client.post(reverse("knowledge:consent"), {"path": "/Kanzlei", "enabled": "0"})
    assert response.status_code == 302
    assert not Chunk.objects.filter(file__path="/Kanzlei").exists()
    assert KnowledgeFile.objects.get(source_id="3").status == "excluded"
    rule = ConsentRule.objects.get()
    client.post(reverse("knowledge:clear-consent", args=[rule.pk]))
    assert not ConsentRule.objects.exists()


def test_staff_cannot_switch_a_shared_folder(client, anna, files):
    client.force_login(anna)  # the switches are on the admins' page (tests/knowledge/test_wissen_page.py)
    response = client.post(reverse("knowledge:consent"), {"path": "/Kanzlei", "enabled": "0"})
    assert response.status_code == 403
    assert Chunk.objects.filter(file__path="/Kanzlei").exists()


def test_pages_need_a_login(client):
    assert client.get(reverse("knowledge:index")).status_code == 302
    assert client.get(reverse("knowledge:status")).status_code == 302


@pytest.mark.parametrize("model", ["knowledgefile", "indexjob", "consentrule"])
def test_admin_screens_render(client, boss, files, model):
    client.force_login(boss)
    assert client.get(reverse(f"admin:knowledge_{model}_changelist")).status_code == 200


def test_admin_consent_rule_goes_through_the_service(client, boss, files):
    client.force_login(boss)
    response = client.post(
        reverse("admin:knowledge_consentrule_add"),
        {"path_prefix": "/Kanzlei", "connection_key": "", "enabled": ""},
    )
    assert response.status_code == 302
    assert KnowledgeFile.objects.get(source_id="3").status == "excluded"


def test_admin_file_detail_and_actions(client, boss, files):
    client.force_login(boss)
    file = KnowledgeFile.objects.get(source_id="3")
    detail = client.get(reverse("admin:knowledge_knowledgefile_change", args=[file.pk]))
    assert detail.status_code == 200 and "Kanzleihandbuch." not in detail.content.decode()
    changelist = reverse("admin:knowledge_knowledgefile_changelist")
    client.post(changelist, {"action": "purge", "_selected_action": [file.pk]})
    file.refresh_from_db()
    assert file.status == "cancelled" and not Chunk.objects.filter(file=file).exists()
    other = KnowledgeFile.objects.get(source_id="1")
    client.post(changelist, {"action": "reindex", "_selected_action": [other.pk]})
    assert other.jobs.filter(status="queued", reason="manual").exists()
    job = other.jobs.get(status="queued")
    client.post(
        reverse("admin:knowledge_indexjob_changelist"), {"action": "cancel", "_selected_action": [job.pk]}
    )
    job.refresh_from_db()
    assert job.cancel_requested
