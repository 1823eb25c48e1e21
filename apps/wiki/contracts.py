"""The typed contract of the wiki operations: what callers send (input models of the tools) and
what every surface answers with (output models; the builders in `records.py` produce exactly
these shapes, checked in the tests). Agents only read and propose; people edit on the pages."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field, model_validator

from apps.accounts.contracts import PersonRef
from apps.core.contracts import Input, Output, PageInput, paged, wrapped
from apps.wiki.models import BODY_MAX, COMMENT_MAX, SLUG_MAX, TITLE_MAX


# --- output -----------------------------------------------------------------------------------
class WikiPageSummaryOut(Output):
    """Small enough for live events and lists: no body."""

    id: int
    slug: str
    title: str
    revision: int = Field(description="The current revision's number.")
    updated_at: dt.datetime
    url: str


class WikiPageOut(WikiPageSummaryOut):
    body: str = Field(description="Markdown.")
    updated_by: PersonRef | None
    created_at: dt.datetime


class WikiSearchHitOut(WikiPageSummaryOut):
    snippet: str = Field(description="Where the words occur; matches in **bold**.")
    rank: float


class WikiRevisionOut(Output):
    number: int
    title: str
    author: PersonRef | None
    comment: str
    created_at: dt.datetime
    proposal_id: int | None = Field(description="The accepted proposal this revision applies.")


class WikiProposalOut(Output):
    id: int
    page_id: int | None = Field(description="Empty for a proposed new page.")
    slug: str
    is_new_page: bool
    base_revision: int | None = Field(description="The revision the proposal was written against.")
    title: str
    comment: str
    status: Literal["pending", "accepted", "rejected"]
    proposed_by: PersonRef | None
    proposed_by_service: str | None
    run_id: str | None
    reviewer: PersonRef | None
    decided_at: dt.datetime | None
    reason: str
    created_at: dt.datetime
    review_url: str


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


class WikiPreview(Input):
    body: str = Field(
        default="", max_length=BODY_MAX, description="Markdown to render as the page would show it."
    )


class WikiPageStart(Input):
    """The new-page form's prefill: a `[[link]]` to a missing page names the page to create."""

    title: str | None = Field(default=None, max_length=TITLE_MAX)
