"""Approval tokens for destructive, irreversible actions (deleting a folder with its contents,
many items at once): a tool asks for the person's explicit confirmation before it acts.

The first call changes nothing and answers `approval_token_required` with a signed token bound to
the person, the chat and the exact arguments, and a phrase the person must send as a new message
in that chat; the unchanged call retried with `approval_token` then runs, once. The check is the
approvals app's (`tools.approval_tokens`, a callable `(ctx, tool, args, *, action, summary)` that
raises a DomainError unless the call carries a valid token, which it then uses up); without a
contributor nothing destructive runs.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _
from pydantic import BaseModel, Field

from apps.core import plugins
from apps.core.errors import Forbidden
from apps.tools.context import ToolContext

POINT = "tools.approval_tokens"
TOKEN_FIELD = "approval_token"  # noqa: S105 (a field name)


class TokenArgs(BaseModel):
    """Mixed into the args model of a tool that may need a token."""

    approval_token: str | None = Field(
        default=None,
        max_length=2000,
        description="Only when a previous identical call answered approval_token_required and the "
        "person has sent the confirmation phrase as a new message: the token from that answer.",
    )


def max_items() -> int:
    """More items than this deleted at once need a token (CLAPILOT_APPROVAL_TOKEN_MAX_ITEMS)."""
    return int(getattr(settings, "CLAPILOT_APPROVAL_TOKEN_MAX_ITEMS", 20))


def too_many(count: int) -> bool:
    return count > max_items()


def require_token(ctx: ToolContext, tool: str, args: BaseModel, *, action: str, summary: str) -> None:
    """Raise unless `args.approval_token` confirms exactly this call (then it is used up).
    `action`: the words of the phrase ("delete folder"); `summary`: what the call would do."""
    checks = plugins.contributions(POINT)
    if not checks:
        raise Forbidden(_("This action needs a person's confirmation, which is not available here."))
    checks[0](ctx, tool, args, action=action, summary=summary)
