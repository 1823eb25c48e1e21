"""Hybrid retrieval over usable memory: nearest neighbours by cosine (the partial HNSW index over
approved rows) and German full-text rank, fused by reciprocal rank, in one SQL statement.

The reader's holders, the review state and the validity window filter the rows *inside* both
rankings, so nothing invisible or unapproved can take a candidate's place; iterative HNSW scans
(`hnsw.iterative_scan`) keep a selective filter (one person's memory among the office's) from
coming back short. The query vector is the knowledge store's (`ContextQuery.vector()`), so a
`context_search` embeds once for every source.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from apps.knowledge import embeddings
from apps.knowledge.search import (
    FUSED_SCORE,
    MIN_CANDIDATES,
    Ranking,
    ranked_ctes,
    text_query,
    tuned_rows,
    vector_literal,
)
from apps.memory.models import Memory
from apps.memory.records import from_joined_row, joined_select
from apps.memory.visibility import Reader, usable_sql

MAX_LIMIT = 50
# Full text is bounded: of the memories matching all words, then any word, the newest
# TEXT_SCAN_CAP of each tier are ranked (memories are short; newer ones are likelier current).
# Newest, not "whichever the plan reads first", so the result does not depend on the plan.
TEXT_SCAN_CAP = 400


@dataclass(frozen=True)
class Filters:
    holders: list[str]
    kind: str | None = None
    subject_client_id: int | None = None

    def sql(self, alias: str = "m") -> tuple[str, list]:
        now = timezone.now()
        clauses = [f"{alias}.holder = ANY(%s)", usable_sql(alias)]
        params: list = [self.holders, now, now]
        if self.kind:
            clauses.append(f"{alias}.kind = %s")
            params.append(self.kind)
        if self.subject_client_id is not None:
            clauses.append(f"{alias}.subject_client_id = %s")
            params.append(self.subject_client_id)
        return " AND ".join(clauses), params


def _ranked_sql(filters: Filters, query: str, vector, limit: int, model: str) -> tuple[str, list, int]:
    """The hybrid ranking as SQL: (id, score) of the best `limit` usable memories, best first."""
    where, params = filters.sql("m")
    candidates = max(limit * 4, MIN_CANDIDATES)
    ranking = Ranking("memory_memory", "m", where, params, newest_first=True)
    ctes, params = ranked_ctes(
        ranking, vector_literal(vector), model, text_query(query), candidates, TEXT_SCAN_CAP
    )
    sql = f"""
        WITH {ctes}
        SELECT ids.id, {FUSED_SCORE} AS score
        FROM (SELECT id FROM vr UNION SELECT id FROM fts) AS ids
        LEFT JOIN vr ON vr.id = ids.id
        LEFT JOIN fts ON fts.id = ids.id
        ORDER BY score DESC, ids.id
        LIMIT %s
    """  # noqa: S608 (fragments are constants; values are parameters)
    return sql, [*params, limit], candidates


def hybrid(
    filters: Filters, query: str, vector, *, limit: int = 10, model: str | None = None
) -> list[tuple[int, float]]:
    """(memory id, fused score) of the best `limit` usable memories, best first. `model` is the
    id of the model that made `vector` (read from the settings when not given)."""
    if not filters.holders:
        return []
    sql, params, candidates = _ranked_sql(filters, query, vector, limit, model or embeddings.current_model())
    return [(row[0], float(row[1])) for row in tuned_rows(sql, params, candidates)]


def memories(
    filters: Filters, query: str, vector, *, limit: int = 10, model: str | None = None
) -> list[tuple[Memory, float]]:
    """`hybrid`, the memories loaded with what their records read, in the same statement: one
    round trip for a whole search."""
    if not filters.holders:
        return []
    ranked, params, candidates = _ranked_sql(
        filters, query, vector, limit, model or embeddings.current_model()
    )
    columns, joins = joined_select("m")
    sql = f"""WITH ranked AS MATERIALIZED ({ranked})
        SELECT {columns}, ranked.score FROM ranked JOIN memory_memory m ON m.id = ranked.id {joins}
        ORDER BY ranked.score DESC, ranked.id"""  # noqa: S608 (constant fragments)
    return [
        (memory, float(rest[0])) for memory, rest in map(from_joined_row, tuned_rows(sql, params, candidates))
    ]


def nearest_ids(filters: Filters, vector, *, limit: int = 10, exact: bool = False) -> list[int]:
    """The vector half alone: through the HNSW index, or `exact` (a full scan of the same filter,
    what the index's recall is measured against in bench/memory.py)."""
    where, params = filters.sql("m")
    literal = vector_literal(vector)
    sql = f"""SELECT m.id FROM memory_memory m WHERE m.embedding_model = %s AND {where}
              ORDER BY m.embedding <=> %s::vector LIMIT %s"""  # noqa: S608 (constant fragments)
    with transaction.atomic():
        if exact:
            with connection.cursor() as cur:
                cur.execute("SELECT set_config('enable_indexscan', 'off', true)")
        rows = tuned_rows(
            sql, [embeddings.current_model(), *params, literal, limit], max(limit * 4, MIN_CANDIDATES)
        )
    return [row[0] for row in rows]


def filters_for(
    reader: Reader, scope: str, *, kind: str | None = None, subject_client_id: int | None = None
) -> Filters:
    return Filters(reader.holders(scope), kind=kind, subject_client_id=subject_client_id)
