"""Unified retrieval across sources (`context_search`) and reading one source-qualified result
(`context_get`).

The sources are declared by the apps that own the content, on their `DomainApp`:
`extends = {"knowledge.sources": ["apps.<app>.<module>.source"]}`, each a `ContextSource`.
Content indexed in the knowledge store (documents today) builds its source with
`knowledge_source(...)` and may give it a `load` for re-indexing; an app that searches its own
rows (wiki, Notizen) builds a `ContextSource` with its own `search` and `get`.

Each source ranks its own hits; the lists are fused by reciprocal rank, and every source that
found something keeps a few reserved places before the final limit, so one large source cannot
crowd out the others.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.core import plugins, validation
from apps.core.errors import DomainError
from apps.knowledge import embeddings, search
from apps.knowledge.errors import KnowledgeNotFound, UnknownSource
from apps.knowledge.visibility import ALL, PERSONAL, SCOPE_CHOICES, visible_files

logger = logging.getLogger(__name__)

RRF_K = 60
RESERVED_PER_SOURCE = 2
SNIPPET_CHARS = 600
GET_MAX_CHARS = 20_000
_REF = re.compile(r"^([a-z][a-z0-9_]{0,31}):([\w.\-]{1,100})$")


@dataclass
class ContextQuery:
    """One search request, shared by all sources (the query is embedded at most once)."""

    principal: Principal
    text: str
    scope: str = ALL
    limit: int = 10
    specialist: str | None = None  # the specialist a run acts as (its personal memory)
    _vector: np.ndarray | None = field(default=None, repr=False)
    _config: embeddings.EmbeddingConfig | None = field(default=None, repr=False)
    _pending: Callable[[], np.ndarray] | None = field(default=None, repr=False)

    def config(self) -> embeddings.EmbeddingConfig:
        """The embeddings settings, read once per request (sources compare with its model id)."""
        if self._config is None:
            self._config = embeddings.load_config()
        return self._config

    def embed_ahead(self) -> None:
        """Start the query's embedding now (in the background for the local model), so sources
        that rank by text alone run while it is computed."""
        if self._vector is None and self._pending is None:
            self._pending = embeddings.query_later(self.text, self.config())

    def vector(self) -> np.ndarray:
        if self._vector is None:
            if self._pending is None:
                self.embed_ahead()
            pending, self._pending = self._pending, None
            self._vector = pending()
        return self._vector


@dataclass(frozen=True)
class ContextHit:
    ref: str
    source: str
    title: str
    snippet: str
    meta: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "id": self.ref,
            "source": self.source,
            "title": self.title,
            "snippet": self.snippet,
            **self.meta,
        }


SOURCES = "knowledge.sources"  # the extension point: dotted paths of `ContextSource` objects


@dataclass(frozen=True)
class ContextSource:
    name: str
    search: Callable[[ContextQuery], list[ContextHit]]  # best first, at most query.limit
    get: Callable[[Principal, str, dict], dict]  # raises KnowledgeNotFound when invisible/missing
    description: str = ""
    uses_vector: bool = False  # ranks with `ContextQuery.vector()`: searched after the text-only ones
    # The source's current payload for the store (None when gone): re-indexing after consent
    # comes back, when the stored text was purged. Only for sources indexed in the store.
    load: Callable[[str], dict | None] | None = None

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]{0,31}", self.name):
            raise ValueError(f"bad context source name {self.name!r}")


def all_sources() -> dict[str, ContextSource]:
    """name → source, in INSTALLED_APPS order, from every app's `knowledge.sources`."""
    found: dict[str, ContextSource] = {}
    for source in plugins.contributions(SOURCES):
        if not isinstance(source, ContextSource):
            raise plugins.ImproperlyDeclared(f"{SOURCES} expects ContextSource objects, got {source!r}")
        if source.name in found:
            raise plugins.ImproperlyDeclared(f"context source {source.name!r} is declared twice")
        found[source.name] = source
    return found


# --- the knowledge store as a source ----------------------------------------------------------
def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def knowledge_source(
    source_type: str, description: str = "", *, load: Callable[[str], dict | None] | None = None
) -> ContextSource:
    """A context source over the store's chunks of one source type (`document` …); `load` gives
    the store a source's current payload again (see `ContextSource.load`)."""

    def run_search(q: ContextQuery) -> list[ContextHit]:
        hits = search.hybrid_search(
            q.principal,
            q.text,
            limit=min(search.MAX_LIMIT, q.limit * 3),
            scope=q.scope,
            source_types=[source_type],
            query_vector=q.vector(),
            config=q.config(),
        )
        return [
            ContextHit(
                ref=hit.ref,
                source=source_type,
                title=hit.title,
                snippet=snippet(hit.text),
                meta={"section": hit.heading, "path": hit.path, "scope": hit.scope, "chunk": hit.ordinal},
            )
            for hit in search.best_per_file(hits, q.limit)
        ]

    def run_get(principal: Principal, source_id: str, options: dict) -> dict:
        file = visible_files(principal).filter(source_type=source_type, source_id=source_id).first()
        if file is None:
            raise KnowledgeNotFound(
                _("There is nothing with the id %(id)s.") % {"id": f"{source_type}:{source_id}"}
            )
        offset = int(options.get("offset") or 0)
        max_chars = int(options.get("max_chars") or GET_MAX_CHARS)
        part = file.text[offset : offset + max_chars]
        end = offset + len(part)
        return {
            "id": file.ref,
            "source": source_type,
            "title": file.title,
            "path": file.path,
            "scope": file.scope,
            "status": file.status,
            "indexed_at": file.indexed_at.isoformat() if file.indexed_at else None,
            "sections": [{"title": s.get("title", ""), "offset": s.get("start", 0)} for s in file.sections],
            "text": part,
            "offset": offset,
            "total_chars": len(file.text),
            "next_offset": end if end < len(file.text) else None,
        }

    return ContextSource(
        source_type, search=run_search, get=run_get, description=description, load=load, uses_vector=True
    )


# --- the two operations -----------------------------------------------------------------------
def _clean_sources(names: Iterable[str] | None, known: dict[str, ContextSource]) -> list[str]:
    if names is None:
        return list(known)
    names = list(dict.fromkeys(names))
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UnknownSource(
            _("Unknown source: %(names)s. Known: %(known)s.")
            % {"names": ", ".join(unknown), "known": ", ".join(sorted(known))},
            details={"field_errors": {"sources": _("unknown: %(n)s") % {"n": ", ".join(unknown)}}},
        )
    return names


def fuse(ranked: dict[str, list[ContextHit]], limit: int) -> list[tuple[ContextHit, float]]:
    """Reciprocal-rank fusion with a per-source reservation: each source with hits keeps its
    best `RESERVED_PER_SOURCE` (fewer when the limit is small) before the rest compete."""
    scored: dict[str, tuple[ContextHit, float, str, int]] = {}
    for name, hits in ranked.items():
        for rank, hit in enumerate(hits, start=1):
            score = 1.0 / (RRF_K + rank)
            previous = scored.get(hit.ref)
            total = score + (previous[1] if previous else 0.0)
            scored[hit.ref] = (previous[0] if previous else hit, total, name, rank)
    nonempty = [name for name, hits in ranked.items() if hits]
    reserve = min(RESERVED_PER_SOURCE, limit // max(1, len(nonempty)))
    chosen: dict[str, tuple[ContextHit, float]] = {}
    for name in nonempty:
        for hit in ranked[name][:reserve]:
            chosen.setdefault(hit.ref, (scored[hit.ref][0], scored[hit.ref][1]))
    for ref, (hit, score, _name, _rank) in sorted(scored.items(), key=lambda item: -item[1][1]):
        if len(chosen) >= limit:
            break
        chosen.setdefault(ref, (hit, score))
    return sorted(chosen.values(), key=lambda pair: -pair[1])[:limit]


def context_search(
    principal: Principal,
    query: str,
    *,
    sources: Iterable[str] | None = None,
    scope: str = ALL,
    limit: int = 10,
    specialist: str | None = None,
) -> dict:
    query = search.clean_query(query)
    if scope not in SCOPE_CHOICES:
        raise validation.invalid("scope", _("must be personal, shared or all"))
    known = all_sources()
    names = _clean_sources(sources, known)
    notices: list[str] = []
    if scope == PERSONAL and principal.resource_scope.shared_only:
        notices.append(_("Personal scope is not available here; nothing was searched."))
        return {"results": [], "notices": notices, "sources": names}
    q = ContextQuery(principal=principal, text=query, scope=scope, limit=limit, specialist=specialist)
    if any(known[name].uses_vector for name in names):
        q.embed_ahead()
    # Text-only sources first, while the query is embedded; the fusion keeps the requested order.
    found: dict[str, list[ContextHit]] = {}
    failed: set[str] = set()
    for name in sorted(names, key=lambda n: known[n].uses_vector):
        try:
            found[name] = known[name].search(q)[:limit]
        except DomainError as exc:
            logger.warning("context source %s failed: %s", name, exc.code)
            failed.add(name)
    notices += [
        _("The source %(name)s is unavailable right now.") % {"name": n} for n in names if n in failed
    ]
    ranked = {name: found[name] for name in names if name in found}
    results = [hit.as_dict() | {"score": round(score, 6)} for hit, score in fuse(ranked, limit)]
    return {"results": results, "notices": notices, "sources": names}


def parse_ref(ref: Any) -> tuple[str, str]:
    match = _REF.match(str(ref or "").strip())
    if not match:
        raise validation.invalid("id", _("must look like document:12 (source:id from context_search)"))
    return match.group(1), match.group(2)


def context_get(
    principal: Principal,
    ref: str,
    *,
    offset: int = 0,
    max_chars: int = GET_MAX_CHARS,
    specialist: str | None = None,
) -> dict:
    name, source_id = parse_ref(ref)
    source = all_sources().get(name)
    if source is None:
        raise UnknownSource(_("Unknown source: %(names)s.") % {"names": name})
    options = {"offset": offset, "max_chars": max_chars, "specialist": specialist}
    return source.get(principal, source_id, options)
