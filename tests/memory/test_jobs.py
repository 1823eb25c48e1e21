"""A memory stored while the embedding provider fails: kept, found by its words, waiting for review;
the re-embedding job (through a real worker) gives it a vector of the current model."""

import pytest

from apps.core.inputs import build
from apps.knowledge import embeddings
from apps.knowledge.errors import EmbeddingError
from apps.memory import jobs, reads, services
from apps.memory.contracts import MemoryReview, MemorySearch, MemoryStore
from apps.memory.models import Memory
from tests.waiting import wait_for
from tests.workers import in_process_worker


@pytest.mark.django_db
def test_a_failing_provider_keeps_the_memory_pending_and_findable_by_words(as_anna, monkeypatch):
    def down(*args, **kwargs):
        raise EmbeddingError("down")

    monkeypatch.setattr(embeddings, "embed_passages", down)
    stored = services.store(
        as_anna, build(MemoryStore, text="Die Kanzlei schließt freitags um 14 Uhr.", scope="personal")
    )
    unchecked = Memory.objects.get(pk=stored.memory.pk)
    assert (unchecked.review, unchecked.embedding, unchecked.checking) == ("pending", None, False)
    assert unchecked.revisions.last().note == "not checked: no embedding"
    services.review(as_anna, stored.memory.pk, build(MemoryReview, decision="approve"))
    monkeypatch.undo()
    found = reads.search_memory(as_anna, build(MemorySearch, query="Kanzlei freitags"))
    assert [m["id"] for m in found["memories"]] == [stored.memory.pk]


@pytest.mark.django_db(transaction=True)
def test_reembed_job_through_the_worker(as_anna):
    stored = services.store(
        as_anna, build(MemoryStore, text="Frau Schulz bevorzugt E-Mails.", scope="personal")
    ).memory
    Memory.objects.filter(pk=stored.pk).update(embedding=None, embedding_model="")
    with in_process_worker():
        jobs.reembed.delay()
        wait_for(lambda: Memory.objects.get(pk=stored.pk).embedding_model == embeddings.current_model())
    assert Memory.objects.get(pk=stored.pk).embedding is not None


@pytest.mark.django_db(transaction=True)
def test_a_backlog_of_checks_is_drained_by_fewer_jobs_than_checks(
    as_anna, deferred_checks, monkeypatch, django_capture_on_commit_callbacks
):
    """Stores that outrun the worker: the first check job checks its memory and the ones waiting
    behind it; the jobs queued after it find theirs done (no second check, no second verdict)."""
    sent: list[int] = []
    monkeypatch.setattr(jobs.check, "delay", sent.append)
    texts = [f"Mandant Nummer {i} zahlt die Umsatzsteuer quartalsweise, Vorgang {i * 7}." for i in range(6)]
    for text in texts:
        with django_capture_on_commit_callbacks(execute=True):
            services.store(as_anna, build(MemoryStore, text=text, scope="personal"))
    assert len(sent) == 6 and Memory.objects.filter(checking=True).count() == 6
    monkeypatch.undo()

    with in_process_worker():
        jobs.check.delay(sent[0])  # one job of the six
        wait_for(lambda: not Memory.objects.filter(checking=True).exists(), timeout=60)
    assert Memory.objects.filter(pk__in=sent, embedding__isnull=False).count() == 6
    assert [jobs.check(pk) for pk in sent[1:]] == [None] * 5  # the other jobs: nothing left


@pytest.mark.django_db
def test_a_check_claimed_by_another_process_is_skipped(as_anna, deferred_checks, monkeypatch):
    """Two pool processes draining the same backlog never check one memory at the same time."""
    import psycopg
    from django.db import connection

    from tests.live import database_url

    monkeypatch.setattr(jobs.check, "delay", lambda *a, **k: None)
    memory = services.store(
        as_anna, build(MemoryStore, text="Herr Braun ruft nur vormittags an.", scope="personal")
    ).memory
    with psycopg.connect(
        database_url(connection.settings_dict).replace("postgres://", "postgresql://")
    ) as other:
        other.execute("SELECT pg_advisory_lock(%s, %s)", [jobs._CHECK_LOCK, memory.pk])
        assert jobs.check(memory.pk, batch=0) is None
        assert Memory.objects.get(pk=memory.pk).checking
        # Released here, not by closing the connection: the server drops a closed session's locks
        # a moment later, and the next check could still find it taken.
        other.execute("SELECT pg_advisory_unlock(%s, %s)", [jobs._CHECK_LOCK, memory.pk])
    assert jobs.check(memory.pk, batch=0) == "created"
