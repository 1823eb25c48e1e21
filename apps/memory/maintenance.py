"""Keeping memory vectors current: after the embedding model changes, or when the provider failed
while a memory was stored, the memory gets a vector of the current model (until then it is found
by its words only, and never compared with vectors of another model)."""

from __future__ import annotations

import datetime as dt
import logging

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from apps.knowledge import embeddings
from apps.knowledge.errors import EmbeddingError
from apps.memory.models import Memory
from apps.memory.records import with_relations

logger = logging.getLogger(__name__)


# A memory's check job normally runs within a second of its store; one still unchecked after
# this long lost its job (a broker that failed at commit, a worker gone with it).
RECHECK_AFTER = dt.timedelta(minutes=2)


def recheck(*, batch: int = 200) -> int:
    """Check the memories whose check job was lost (`checking.run`, idempotent)."""
    from apps.memory import checking

    cutoff = timezone.now() - RECHECK_AFTER
    ids = list(
        Memory.objects.filter(checking=True, created_at__lt=cutoff)
        .order_by("id")
        .values_list("id", flat=True)[:batch]
    )
    return sum(1 for memory_id in ids if checking.run(memory_id) is not None)


def reembed(*, batch: int = 200) -> int:
    config = embeddings.load_config()
    model = config.model_id
    stale = list(
        Memory.objects.filter(Q(embedding__isnull=True) | ~Q(embedding_model=model))
        .filter(checking=False)  # the check embeds those
        .order_by("id")
        .values_list("id", "text")[:batch]
    )
    if not stale:
        return 0
    try:
        vectors = embeddings.embed_passages([text for _id, text in stale], config)
    except EmbeddingError as exc:
        logger.warning("memory re-embedding skipped: %s", exc.code)
        return 0
    with transaction.atomic():
        for (memory_id, text), vector in zip(stale, vectors, strict=True):
            # Only if the text is still the one embedded (an edit meanwhile has its own vector).
            Memory.objects.filter(pk=memory_id, text=text).update(embedding=vector, embedding_model=model)
    return len(stale)


def read_subjects(*, batch: int = 500) -> int:
    """Memories stored before their text was read for whom it names (`subject_anchors` NULL) get
    their anchors, so the contradiction and duplicate checks find them among the same subject's."""
    from apps.memory import subjects

    rows = list(
        with_relations(Memory.objects.defer("embedding"))
        .filter(subject_anchors__isnull=True, checking=False)
        .order_by("id")[:batch]
    )
    for memory in rows:
        anchors = subjects.of_memory(memory).anchors
        Memory.objects.filter(pk=memory.pk, text=memory.text).update(subject_anchors=anchors)
    return len(rows)
