"""The typed contract of learning: the agent's two read tools and the review operations people use
(pages, admin, REST of the review app). No agent tool approves, promotes or deletes learning."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from apps.accounts.contracts import PersonRef
from apps.core.contracts import Input, Output, PageInput, paged, wrapped
from apps.learning.models import NOTE_MAX, TEXT_MAX

Kind = Literal["durable_fact", "procedure_proposal"]
Status = Literal["active", "staged", "rejected", "retired"]
ReviewDecision = Literal["approve", "reject", "edit"]


# --- output -----------------------------------------------------------------------------------
class EvidenceOut(Output):
    run_id: int | None = Field(description="The chat run the object was learned from.")
    quote: str = Field(description="The span quoted from that run.")
    created_at: dt.datetime


class LearningObjectOut(Output):
    id: str = Field(description="Source-qualified id, e.g. learning:12 (also for context_get).")
    object_id: int
    kind: Kind
    text: str
    subject: str
    status: Status
    staged_reason: str = Field(description="Why a person must decide: correction, conflict, unsafe …")
    conflicts_with: int | None
    confidence: float | None
    confirmations: int
    checked_at: dt.datetime | None
    created_at: dt.datetime
    updated_at: dt.datetime


class LearningObjectDetailOut(LearningObjectOut):
    evidence: list[EvidenceOut] = Field(
        description="Where it was learned, for the object's reviewers and the owner of each chat only "
        "(everyone else sees the fact without the quote)."
    )


class LearningDecisionOut(Output):
    id: int
    object_id: int
    decision: str
    actor: Literal["person", "curator", "extraction"]
    decided_by: PersonRef | None
    reason: str
    note: str
    confidence: float | None
    model: str
    before: dict
    after: dict
    reverted_by: PersonRef | None
    reverted_at: dt.datetime | None
    created_at: dt.datetime


LearningSearchPage = paged(LearningObjectOut, "results", name="LearningSearchPage")
LearningObjectResult = wrapped(LearningObjectDetailOut, "object", name="LearningObjectResult")


# --- input: the agent's read tools ------------------------------------------------------------
class LearningSearch(PageInput):
    query: str | None = Field(
        default=None, max_length=200, description="Words to look for; empty lists the newest."
    )
    object_type: Kind | None = Field(default=None, description="Only facts or only procedure proposals.")
    limit: int = Field(default=10, ge=1, le=50, description="Page size.")


class LearningGetObject(Input):
    object_id: str = Field(
        min_length=1, max_length=40, description="The id from learning_search: 12 or learning:12."
    )


# --- input: people's review -------------------------------------------------------------------
class LearningReview(Input):
    object_id: int
    decision: ReviewDecision = Field(description="approve, reject, or edit (approve with the new text).")
    text: str | None = Field(default=None, max_length=TEXT_MAX, description="The new text (edit only).")
    note: str = Field(default="", max_length=NOTE_MAX)


class LearningBulkReview(Input):
    object_ids: list[int] = Field(min_length=1, max_length=200)
    decision: Literal["approve", "reject"]
    note: str = Field(default="", max_length=NOTE_MAX)


class LearningRevert(Input):
    decision_id: int


class LearningQueue(PageInput):
    status: Status | None = Field(default="staged")
    kind: Kind | None = None
    staged_reason: str | None = Field(default=None, max_length=16)
    query: str | None = Field(default=None, max_length=200)
