"""A memory stored while the embedding provider fails: kept, found by its words, waiting for review;
the re-embedding job (through a real worker) gives it a vector of the current model."""

import pytest

from apps.knowledge import embeddings
from apps.knowledge.errors import EmbeddingError
from apps.memory import jobs, reads, services
from apps.memory.models import Memory
from tests.waiting import wait_for
from tests.workers import in_process_worker


@pytest.mark.django_db
def test_a_failing_provider_keeps_the_memory_pending_and_findable_by_words(as_anna, monkeypatch):
    def down(*args, **kwargs):
        raise EmbeddingError("down")

    monkeypatch.setattr(embeddings, "embed_passages", down)
    stored = services.store(as_anna, text="Die Kanzlei schließt freitags um 14 Uhr.", scope="personal")
    unchecked = Memory.objects.get(pk=stored.memory.pk)
    assert (unchecked.review, unchecked.embedding, unchecked.checking) == ("pending", None, False)
    assert unchecked.revisions.last().note == "not checked: no embedding"
    services.review(as_anna, stored.memory.pk, "approve")
    monkeypatch.undo()
    found = reads.search_memory(as_anna, "Kanzlei freitags")
    assert [m["id"] for m in found["memories"]] == [stored.memory.pk]


@pytest.mark.django_db(transaction=True)
def test_reembed_job_through_the_worker(as_anna):
    stored = services.store(as_anna, text="Frau Schulz bevorzugt E-Mails.", scope="personal").memory
    Memory.objects.filter(pk=stored.pk).update(embedding=None, embedding_model="")
    with in_process_worker():
        jobs.reembed.delay()
        wait_for(lambda: Memory.objects.get(pk=stored.pk).embedding_model == embeddings.current_model())
    assert Memory.objects.get(pk=stored.pk).embedding is not None
