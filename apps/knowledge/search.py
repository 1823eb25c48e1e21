"""Hybrid retrieval over the chunks: nearest neighbours by cosine (HNSW) and German full-text
rank, fused by reciprocal rank (k=60), in one SQL statement.

The principal's visible scope and the current embedding model filter the rows *before* either
ranking, so nothing out of scope can take a place in the candidate lists, and vectors of two
models are never compared. Iterative HNSW scans keep filtered queries from coming back short.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.core import validation
from apps.knowledge import embeddings
from apps.knowledge.visibility import ALL, SCOPE_CHOICES, scope_sql
from apps.llm import neutralize

RRF_K = 60
QUERY_MAX = 1000
MAX_LIMIT = 50
MIN_CANDIDATES = 40
EF_SEARCH = 100
FTS_SCAN_CAP = 1000
_WORD = re.compile(r"[^\W_]{2,}", re.UNICODE)


@dataclass(frozen=True)
class Hit:
    chunk_id: int
    file_id: int
    ordinal: int
    heading: str
    text: str
    source_type: str
    source_id: str
    title: str
    path: str
    scope: str
    score: float
    vector_rank: int | None
    text_rank: int | None

    @property
    def ref(self) -> str:
        return f"{self.source_type}:{self.source_id}"


def vector_literal(vector: np.ndarray | Iterable[float]) -> str:
    return "[" + ",".join(f"{float(x):.7g}" for x in vector) + "]"


def text_query(query: str) -> str:
    """Any of the words (OR): a question rarely repeats every word of the passage it needs.
    Passages with all the words still rank first (see `hybrid_search`)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))[:24]
    return " | ".join(words)


def clean_query(query: object) -> str:
    return validation.text(query, "query", max_length=QUERY_MAX, required=True)


def _filters(principal: Principal, scope: str, source_types, file_ids) -> tuple[str, list]:
    if scope not in SCOPE_CHOICES:
        raise validation.invalid("scope", _("must be personal, shared or all"))
    sql, params = scope_sql(principal, scope, alias="c")
    clauses, values = [sql], list(params)
    if source_types is not None:
        clauses.append("c.source_type = ANY(%s)")
        values.append(list(source_types))
    if file_ids is not None:
        clauses.append("c.file_id = ANY(%s)")
        values.append([int(i) for i in file_ids])
    return " AND ".join(clauses), values


TUNE = "SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.iterative_scan', 'relaxed_order', true);\n"
# The fused score of a row ranked by `ranked_ctes` (a rank missing from one list adds nothing).
FUSED_SCORE = f"COALESCE(1.0 / ({RRF_K} + vr.r), 0) + COALESCE(1.0 / ({RRF_K} + fts.r), 0)"
NO_TEXT = "fts AS (SELECT NULL::bigint AS id, NULL::bigint AS r WHERE FALSE)"


@dataclass(frozen=True)
class Ranking:
    """What a hybrid search ranks: rows of `table` (aliased `alias`, with the columns `embedding`,
    `embedding_model` and `search`) matching `where`; the full-text tiers match `text_where`
    (default `where`), newest first when `newest_first` (else whichever rows the plan reads)."""

    table: str
    alias: str
    where: str
    params: list
    text_where: str | None = None
    text_params: list | None = None
    newest_first: bool = False


def ranked_ctes(
    ranking: Ranking, literal: str, model: str, any_words: str, candidates: int, scan_cap: int
) -> tuple[str, list]:
    """The CTEs `vec`, `vr` (vector ranks) and `fts` (text ranks) of one hybrid search, and their
    parameters: the caller selects from `(SELECT id FROM vr UNION SELECT id FROM fts)` and orders
    by `FUSED_SCORE`. Full text is bounded: rows with all the words first, then any of them; each
    tier stops after `scan_cap` matches, so a query of very common words cannot rank half the
    table."""
    t, a, where = ranking.table, ranking.alias, ranking.where
    vec = f"""vec AS MATERIALIZED (
            SELECT {a}.id, {a}.embedding <=> %s::vector AS dist
            FROM {t} {a}
            WHERE {a}.embedding_model = %s AND {where}
            ORDER BY {a}.embedding <=> %s::vector
            LIMIT %s
        ),
        vr AS (SELECT id, row_number() OVER (ORDER BY dist, id) AS r FROM vec)"""  # noqa: S608 (constant fragments)
    params = [literal, model, *ranking.params, literal, candidates]
    if not any_words:
        return f"{vec},\n        {NO_TEXT}", params
    text_where = ranking.text_where or where
    text_params = ranking.params if ranking.text_params is None else ranking.text_params
    order = f"ORDER BY {a}.id DESC " if ranking.newest_first else ""
    tier = (
        f"(SELECT {a}.id FROM {t} {a} WHERE {text_where}"  # noqa: S608 (constant fragments)
        f" AND {a}.search @@ to_tsquery('german', %s) {order}LIMIT %s)"
    )
    fts = f"""tier AS MATERIALIZED ({tier} UNION {tier}),
        fts AS (
            SELECT {a}.id, row_number() OVER (
                ORDER BY {a}.search @@ to_tsquery('german', %s) DESC,
                         ts_rank({a}.search, to_tsquery('german', %s)) DESC, {a}.id
            ) AS r
            FROM tier JOIN {t} {a} ON {a}.id = tier.id
            ORDER BY r LIMIT %s
        )"""  # noqa: S608 (constant fragments; values are parameters)
    all_words = any_words.replace(" | ", " & ")
    params += [*text_params, all_words, scan_cap, *text_params, any_words, scan_cap]
    params += [all_words, any_words, candidates]
    return f"{vec},\n        {fts}", params


def tuned_rows(sql: str, params: list, candidates: int) -> list[tuple]:
    """Rows of `sql`, run with the HNSW settings for `candidates`. The settings go in the same
    message as the statement: several statements in one simple query run as one implicit
    transaction (Django's psycopg cursors bind client-side), so a search is one round trip instead
    of five (BEGIN, two settings, the search, COMMIT)."""
    with connection.cursor() as cur:
        cur.execute(TUNE + sql, [str(max(EF_SEARCH, candidates)), *params])
        cur.nextset()
        return cur.fetchall()


def hybrid_search(
    principal: Principal,
    query: str,
    *,
    limit: int = 10,
    scope: str = ALL,
    source_types: Iterable[str] | None = None,
    file_ids: Iterable[int] | None = None,
    query_vector: np.ndarray | None = None,
    use_text: bool = True,
    config: embeddings.EmbeddingConfig | None = None,
) -> list[Hit]:
    """The best `limit` chunks for `query` the principal may see. Raises `EmbeddingError` when
    the query cannot be embedded (callers decide whether to degrade). `config`: the embeddings
    settings when the caller read them already (`context_search` reads them once per request)."""
    query = clean_query(query)
    if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise validation.invalid("limit", _("must be between 1 and %(n)s") % {"n": MAX_LIMIT})
    where, where_params = _filters(principal, scope, source_types, file_ids)
    config = config or embeddings.load_config()
    vector = query_vector if query_vector is not None else embeddings.embed_query(query, config)
    candidates = max(limit * 4, MIN_CANDIDATES)
    ranking = Ranking(
        "knowledge_chunk",
        "c",
        where,
        where_params,
        text_where=f"c.embedding_model = %s AND {where}",
        text_params=[config.model_id, *where_params],
    )
    any_words = text_query(query) if use_text else ""
    ctes, params = ranked_ctes(
        ranking, vector_literal(vector), config.model_id, any_words, candidates, FTS_SCAN_CAP
    )
    sql = f"""
        WITH {ctes}
        SELECT c.id, c.file_id, c.ordinal, c.heading, c.text, f.source_type, f.source_id, f.title,
               f.path, f.scope, vr.r, fts.r, {FUSED_SCORE} AS score
        FROM (SELECT id FROM vr UNION SELECT id FROM fts) AS ids
        JOIN knowledge_chunk c ON c.id = ids.id
        JOIN knowledge_knowledgefile f ON f.id = c.file_id
        LEFT JOIN vr ON vr.id = c.id
        LEFT JOIN fts ON fts.id = c.id
        ORDER BY score DESC, c.id
        LIMIT %s
    """  # noqa: S608 (fragments are built here from constants; values are parameters)
    rows = tuned_rows(sql, [*params, limit], candidates)
    hits = [
        Hit(
            chunk_id=row[0],
            file_id=row[1],
            ordinal=row[2],
            heading=row[3],
            text=row[4],
            source_type=row[5],
            source_id=row[6],
            title=row[7],
            path=row[8],
            scope=row[9],
            vector_rank=row[10],
            text_rank=row[11],
            score=float(row[12]),
        )
        for row in rows
    ]
    # Passages of a source marked "neutralize always" are about to reach a model (RAG block,
    # context_search): the current run's gate must neutralize (no-op outside a run's scope).
    neutralize.touch({h.ref for h in hits})
    return hits


def best_per_file(hits: list[Hit], limit: int) -> list[Hit]:
    """One hit per file (its best chunk), in rank order: a list of sources, not of fragments."""
    seen: set[int] = set()
    out: list[Hit] = []
    for hit in hits:
        if hit.file_id not in seen:
            seen.add(hit.file_id)
            out.append(hit)
            if len(out) >= limit:
                break
    return out
