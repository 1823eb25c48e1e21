"""What the Freigaben page sends: the list's filter and a person's decision on a staged call."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from apps.approvals.standing import MAX_DAYS


class ApprovalsPage(BaseModel):
    """`?alle=1`: an admin's view of everybody's pending calls (ignored for everyone else)."""

    model_config = ConfigDict(extra="ignore")

    alle: bool = False


class DecisionIn(BaseModel):
    """Approve (once, or with a standing approval for alike calls, optionally narrowed to the
    call's board/folder/client and limited in days) or deny."""

    model_config = ConfigDict(extra="ignore")

    decision: Literal["approve", "approve_alike", "deny"]
    narrow: bool = False
    days: int | None = Field(default=None, ge=1, le=MAX_DAYS)
