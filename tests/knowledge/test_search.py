"""Hybrid retrieval: both rankings contribute, the visible scope filters before ranking, the
HNSW index serves the vector part, other models' vectors are never used."""

import pytest
from django.db import connection

from apps.core.errors import InvalidInput
from apps.knowledge import search
from apps.knowledge.models import Chunk
from tests.knowledge.conftest import payload

pytestmark = pytest.mark.django_db


@pytest.fixture
def corpus(index_now, anna, ben, meier):
    return {
        "anna_private": index_now(
            1,
            payload(
                "Meine private Notiz: Einspruch gegen den Grundsteuerbescheid vorbereiten.",
                title="Anna privat",
                scope="personal",
                owner_id=anna.pk,
                path="/Persönlich/anna",
            ),
        ),
        "ben_private": index_now(
            2,
            payload(
                "Bens Notiz: Einspruch gegen den Grundsteuerbescheid, Frist notieren.",
                title="Ben privat",
                scope="personal",
                owner_id=ben.pk,
                path="/Persönlich/ben",
            ),
        ),
        "client": index_now(
            3,
            payload(
                "Meier GmbH: Jahresabschluss 2025 mit Bilanz und Gewinn- und Verlustrechnung.",
                title="Jahresabschluss Meier",
                scope="client",
                client_id=meier.pk,
                path="/Mandanten/Meier",
            ),
        ),
        "office": index_now(
            4,
            payload(
                "Kanzleihandbuch: Urlaubsanträge werden über das Sekretariat eingereicht. Kennwort XQZ-Flux.",
                title="Kanzleihandbuch",
                path="/Kanzlei",
            ),
        ),
    }


def refs(hits):
    return [h.ref for h in hits]


def test_semantic_and_word_matches_both_find_the_right_chunk(corpus, as_anna):
    by_meaning = search.hybrid_search(as_anna, "Wie beantrage ich Urlaub?", limit=3)
    assert refs(by_meaning)[0] == "document:4"
    assert by_meaning[0].vector_rank is not None
    by_word = search.hybrid_search(as_anna, "XQZ-Flux", limit=3)
    assert by_word[0].ref == "document:4" and by_word[0].text_rank == 1
    assert by_word[0].score > by_word[-1].score or len(by_word) == 1


def test_a_user_never_retrieves_another_users_personal_chunks(corpus, as_anna, as_ben, as_boss):
    anna_hits = refs(search.hybrid_search(as_anna, "Einspruch Grundsteuerbescheid Frist", limit=10))
    assert "document:1" in anna_hits and "document:2" not in anna_hits
    ben_hits = refs(search.hybrid_search(as_ben, "Meine private Notiz Einspruch", limit=10))
    assert "document:2" in ben_hits and "document:1" not in ben_hits
    boss_hits = refs(search.hybrid_search(as_boss, "private Notiz Einspruch Grundsteuerbescheid", limit=10))
    assert "document:1" not in boss_hits and "document:2" not in boss_hits  # admins too
    personal_only = refs(search.hybrid_search(as_anna, "Jahresabschluss Kanzleihandbuch", scope="personal"))
    assert set(personal_only) <= {"document:1"}


def test_service_principals_see_shared_content_only(corpus, as_robot):
    hits = refs(
        search.hybrid_search(as_robot, "Einspruch Grundsteuerbescheid Notiz Jahresabschluss", limit=10)
    )
    assert set(hits) <= {"document:3", "document:4"} and "document:3" in hits
    assert search.hybrid_search(as_robot, "Einspruch", scope="personal") == []


def test_chunks_of_another_model_are_never_returned(corpus, as_anna):
    Chunk.objects.filter(file=corpus["office"]).update(embedding_model="openai:other")
    assert "document:4" not in refs(search.hybrid_search(as_anna, "Urlaub Sekretariat XQZ-Flux", limit=10))


def test_the_vector_part_uses_the_hnsw_index(corpus):
    with connection.cursor() as cur:
        cur.execute("SET LOCAL enable_seqscan = off")
        cur.execute(
            "EXPLAIN SELECT id FROM knowledge_chunk ORDER BY embedding <=> %s::vector LIMIT 5",
            [search.vector_literal([0.05] * 384)],
        )
        plan = "\n".join(row[0] for row in cur.fetchall())
    assert "knowledge_chunk_embedding" in plan


@pytest.mark.parametrize(
    ("query", "kwargs"), [("", {}), ("x" * 2000, {}), ("ok", {"limit": 0}), ("ok", {"scope": "everyone"})]
)
def test_bad_search_input_has_a_clear_code(as_anna, query, kwargs):
    with pytest.raises(InvalidInput) as info:
        search.hybrid_search(as_anna, query, **kwargs)
    assert info.value.code == "invalid_input"


def test_text_query_is_an_or_of_safe_words():
    assert search.text_query("Frist & Einspruch | (Meier) !") == "frist | einspruch | meier"
    assert search.text_query("!!! ??") == ""


def test_chunks_of_an_invisible_client_are_never_retrieved(index_now, as_anna, hidden_client):
    index_now(
        5,
        payload(
            "Geheim AG: Jahresabschluss 2025 mit Bilanz.",
            title="Jahresabschluss Geheim",
            scope="client",
            client_id=hidden_client.pk,
            path="/Mandanten/Geheim",
        ),
    )
    assert "document:5" not in refs(search.hybrid_search(as_anna, "Jahresabschluss Bilanz Geheim", limit=10))
