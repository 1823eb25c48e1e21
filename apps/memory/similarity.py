"""What a new memory is compared with: its vector (the knowledge store's embeddings client, the
neutralization gate included) and the most similar live memories of the same holder and subject."""

from __future__ import annotations

import logging

from django.db import connection, transaction
from django.utils import timezone

from apps.knowledge import embeddings
from apps.knowledge.errors import EmbeddingError
from apps.knowledge.search import vector_literal
from apps.memory.checks import Subject
from apps.memory.visibility import usable_sql

logger = logging.getLogger(__name__)

CANDIDATES = 5


def embed(text: str, subject: Subject) -> tuple[list[float] | None, str]:
    """The memory's vector and model tag, or (None, "") when the provider fails (the memory is then
    found by its words only, and re-embedded by `jobs.reembed`)."""
    config = embeddings.load_config()
    from apps.llm import neutralize

    refs = [f"client:{subject.client.pk}"] if subject.client else []
    gate = embeddings.passage_gate(config, required=bool(neutralize.requires(refs)))
    try:
        vector = embeddings.embed_passages([text], config, gate=gate)[0]
    except EmbeddingError as exc:
        logger.warning("memory stored without an embedding: %s", exc.code)
        return None, ""
    return vector, config.model_id


_SUBJECT_SQL = (
    "m.subject_client_id IS NOT DISTINCT FROM %s AND m.subject_case_id IS NOT DISTINCT FROM %s"
    " AND m.subject_person_id IS NOT DISTINCT FROM %s"
)


def nearest(
    holder: str, subject: Subject, vector, model: str, *, exclude: int | None = None, anchors=None
) -> list[tuple]:
    """The most similar live memories of the same holder and subject: (id, text, kind, review,
    similarity), best first. Approved ones through the HNSW index, pending ones directly.
    `anchors` (`subjects.Subjects.anchors`): only memories naming one of them in their text, or
    (empty) naming nobody; rows not read yet (NULL) are the caller's to sort out."""
    literal = vector_literal(vector)
    now = timezone.now()
    base = f"m.holder = %s AND m.embedding_model = %s AND {_SUBJECT_SQL} AND m.id <> %s"
    params = [holder, model, *subject.key, exclude or 0]
    if anchors is not None:
        if anchors:
            base += " AND (m.subject_anchors IS NULL OR m.subject_anchors && %s::varchar[])"
            params.append(list(anchors))
        else:
            base += " AND (m.subject_anchors IS NULL OR m.subject_anchors = '{}')"
    sql = f"""
        (SELECT m.id, m.text, m.kind, m.review, 1 - (m.embedding <=> %s::vector) AS sim
         FROM memory_memory m WHERE {base} AND {usable_sql("m")}
         ORDER BY m.embedding <=> %s::vector LIMIT {CANDIDATES})
        UNION ALL
        (SELECT m.id, m.text, m.kind, m.review, 1 - (m.embedding <=> %s::vector) AS sim
         FROM memory_memory m WHERE {base} AND m.review = 'pending' AND m.assertion <> 'retracted'
         ORDER BY m.embedding <=> %s::vector LIMIT {CANDIDATES})
    """  # noqa: S608 (fragments are constants; values are parameters)
    # Inside `store`'s transaction: no savepoint of its own (two round trips fewer).
    with transaction.atomic(savepoint=False), connection.cursor() as cur:
        cur.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
        cur.execute(sql, [literal, *params, now, now, literal, literal, *params, literal])
        rows = cur.fetchall()
    return sorted(rows, key=lambda row: -row[4])
