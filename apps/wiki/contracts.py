"""The typed contract of the wiki operations: what callers send (the input models the tools, the
page forms and internal callers validate with) and what every surface answers with (output
models that build themselves from rows). Agents only read and propose; people edit on the pages."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from django.db.models import Model
from pydantic import AliasChoices, Field, StringConstraints, field_validator, model_validator

from apps.accounts.contracts import AsServiceName, PersonRef, person_ref
from apps.core.contracts import Input, PageInput, paged, wrapped
from apps.core.outputs import RowOutput
from apps.wiki.models import BODY_MAX, COMMENT_MAX, SLUG_MAX, TITLE_MAX, WikiRevision
from apps.wiki.records import snippet_text

REASON_MAX = 2000  # a rejected proposal's reason

# Markdown keeps its leading indentation (a code block may open the page).
Body = Annotated[str, StringConstraints(strip_whitespace=False, max_length=BODY_MAX)]


# --- output -----------------------------------------------------------------------------------
# Each output builds itself from its row (`RowOutput.of` / `.record`): the one declaration of the
# wire shape that tools, pages and live events send.
def _person(value: Any) -> Any:
    return person_ref(value) if isinstance(value, Model) else value


class WikiPageSummaryOut(RowOutput):
    """Small enough for live events and lists: no body."""

    id: int
    slug: str
    title: str
    revision: int = Field(
        description="The current revision's number.",
        validation_alias=AliasChoices("revision_number", "revision"),
    )
    updated_at: dt.datetime
    url: str


class WikiPageOut(WikiPageSummaryOut):
    body: str = Field(description="Markdown.")
    updated_by: PersonRef | None
    created_at: dt.datetime

    _updated_by = field_validator("updated_by", mode="before")(_person)


class WikiSearchHitOut(WikiPageSummaryOut):
    snippet: str = Field(description="Where the words occur; matches in **bold**.")
    rank: float

    @field_validator("snippet", mode="before")
    @classmethod
    def _snippet(cls, value: Any) -> Any:
        return snippet_text(value or "") if isinstance(value, str) or value is None else value

    @field_validator("rank", mode="before")
    @classmethod
    def _rank(cls, value: Any) -> Any:
        return round(float(value), 4)


class WikiRevisionOut(RowOutput):
    number: int
    title: str
    author: PersonRef | None
    comment: str
    created_at: dt.datetime
    proposal_id: int | None = Field(description="The accepted proposal this revision applies.")

    _author = field_validator("author", mode="before")(_person)


class WikiProposalOut(RowOutput):
    id: int
    page_id: int | None = Field(description="Empty for a proposed new page.")
    slug: str
    is_new_page: bool
    base_revision: int | None = Field(description="The revision the proposal was written against.")
    title: str
    comment: str
    status: Literal["pending", "accepted", "rejected"]
    proposed_by: PersonRef | None
    proposed_by_service: AsServiceName | None
    run_id: str | None
    reviewer: PersonRef | None
    decided_at: dt.datetime | None
    reason: str
    created_at: dt.datetime
    review_url: str

    _people = field_validator("proposed_by", "reviewer", mode="before")(_person)

    @field_validator("base_revision", mode="before")
    @classmethod
    def _revision_number(cls, value: Any) -> Any:
        return value.number if isinstance(value, WikiRevision) else value

    @field_validator("run_id", mode="before")
    @classmethod
    def _run(cls, value: Any) -> Any:
        return value or None


WikiSearchPage = paged(WikiSearchHitOut, "results", name="WikiSearchPage")
WikiPageResult = wrapped(WikiPageOut, "page", name="WikiPageResult")
WikiProposalResult = wrapped(
    WikiProposalOut,
    "proposal",
    name="WikiProposalResult",
    created=(bool, Field(description="False when the same pending text was already proposed.")),
)


# --- input ------------------------------------------------------------------------------------
class WikiSearch(PageInput):
    query: str = Field(min_length=1, max_length=200, description="Words to find (German full-text search).")
    limit: int = Field(default=10, ge=1, le=50, description="Maximum number of pages.")


class WikiPageRef(Input):
    slug: str | None = Field(
        default=None, max_length=SLUG_MAX, description="The page's slug, e.g. posteingang."
    )
    page_id: int | None = Field(default=None, description="The page's id.")

    @model_validator(mode="after")
    def _one_reference(self):
        if (self.slug is None) == (self.page_id is None):
            raise ValueError("give either slug or page_id")
        return self


class WikiProposalCreate(Input):
    slug: str | None = Field(
        default=None,
        max_length=SLUG_MAX,
        description="Existing page to change, or the address of a new page (derived from title if omitted).",
    )
    page_id: int | None = Field(default=None, description="Existing page to change.")
    title: str | None = Field(
        default=None, max_length=TITLE_MAX, description="New title; required for a new page."
    )
    body: str = Field(
        min_length=1, max_length=BODY_MAX, description="The complete new page text in Markdown."
    )
    comment: str | None = Field(default=None, max_length=COMMENT_MAX, description="Why, for the reviewer.")


class WikiProposalReject(Input):
    """A reviewer rejects a proposal (review queue, proposals page, admin): the reason goes to
    whoever proposed it."""

    reason: str = Field(min_length=1, max_length=REASON_MAX, description="Why the proposal is rejected.")


class WikiPreview(Input):
    body: str = Field(
        default="", max_length=BODY_MAX, description="Markdown to render as the page would show it."
    )


class WikiPageStart(Input):
    """The new-page form's prefill: a `[[link]]` to a missing page names the page to create."""

    title: str | None = Field(default=None, max_length=TITLE_MAX)


class WikiPageCreate(Input):
    """A new page, written by a person (agents propose instead)."""

    title: str = Field(min_length=1, max_length=TITLE_MAX)
    slug: str | None = Field(
        default=None, max_length=SLUG_MAX, description="The address; derived from the title if omitted."
    )
    body: Body = ""
    comment: str = Field(default="", max_length=COMMENT_MAX, description="What changed, for the history.")


class WikiPageUpdate(Input):
    """A direct edit: fields left out stay as they are. With `base_revision` (the revision the
    editor started from) a stale save is refused instead of overwriting someone else's edit."""

    title: str | None = Field(default=None, min_length=1, max_length=TITLE_MAX)
    body: Body | None = None
    comment: str = Field(default="", max_length=COMMENT_MAX)
    base_revision: int | None = Field(default=None, ge=0)


class WikiPageFilter(Input):
    """The wiki page's list: words to search for (`?q=`), else every page by title."""

    query: str | None = Field(default=None, max_length=200, validation_alias=AliasChoices("q", "query"))


class WikiHistoryRange(Input):
    """The history page's comparison: revision `a` against revision `b` (default: the newest two)."""

    a: int | None = Field(default=None, ge=0)
    b: int | None = Field(default=None, ge=0)
