"""The typed contract of learning: the agent's two read tools, the review operations people use
(the review queue, the admin) and the extraction job's proposals; the services take these models.
No agent tool approves, promotes or deletes learning."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import Field

from apps.core.contracts import DateTime, Input, PageInput, paged, wrapped
from apps.core.outputs import RowOutput, read_through
from apps.learning.models import NOTE_MAX, QUOTE_MAX, SUBJECT_MAX, TEXT_MAX, LearningObject

Kind = Literal["durable_fact", "procedure_proposal"]
Status = Literal["active", "staged", "rejected", "retired"]
ReviewDecision = Literal["approve", "reject", "edit"]


# --- output -----------------------------------------------------------------------------------
class EvidenceOut(RowOutput):
    run_id: int | None = Field(description="The chat run the object was learned from.")
    quote: str = Field(description="The span quoted from that run.")
    created_at: dt.datetime


class _ObjectRow:
    """A learning object read under the output's names: `id` is its source-qualified ref, the
    primary key is `object_id`, the conflicting fact only its id (no query for it)."""

    def __init__(self, obj: LearningObject, evidence: list[Any] | None = None) -> None:
        self._obj, self.id, self.object_id, self.conflicts_with = obj, obj.ref, obj.pk, obj.conflicts_with_id
        self.evidence = evidence

    def __getattr__(self, name: str) -> Any:
        return getattr(self._obj, name)


class LearningObjectOut(RowOutput):
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

    _row = read_through(LearningObject, _ObjectRow)


class LearningObjectDetailOut(LearningObjectOut):
    evidence: list[EvidenceOut] = Field(
        description="Where it was learned, for the object's reviewers and the owner of each chat only "
        "(everyone else sees the fact without the quote)."
    )

    @classmethod
    def of_object(cls, obj: LearningObject, evidence: list[Any]) -> LearningObjectDetailOut:
        """The object with the evidence rows the reader may see."""
        return cls.model_validate(_ObjectRow(obj, evidence))


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


class LearningQueue(PageInput):
    """What a reviewer looks at: staged objects by default; any status when `status` is None."""

    status: Status | None = Field(default="staged")
    kind: Kind | None = None
    staged_reason: str | None = Field(default=None, max_length=16)
    query: str | None = Field(default=None, max_length=200)
    created_after: DateTime | None = None
    created_before: DateTime | None = None


# --- input: the extraction job ----------------------------------------------------------------
class LearningProposal(Input):
    """One fact or procedure the extraction model found in a run, with the span it quoted."""

    kind: Kind
    text: str = Field(min_length=1, max_length=TEXT_MAX)
    subject: str = Field(default="", max_length=SUBJECT_MAX)
    quote: str = Field(min_length=1, max_length=QUOTE_MAX)
    run_id: int | None
    confidence: float | None
    correction: bool = False
    unsafe: bool = False
    model_label: str = ""


class LearningSettingsSave(Input):
    """The models of the two jobs as an admin chooses them (each explicitly; none: the job skips)."""

    enabled: bool = True
    extraction_model_id: int | None = Field(default=None, ge=1, le=2**31 - 1)
    curator_model_id: int | None = Field(default=None, ge=1, le=2**31 - 1)
