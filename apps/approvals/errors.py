"""Codes of the Freigaben: deciding on staged calls, standing approvals and approval tokens."""

from __future__ import annotations

from apps.core.errors import Conflict, DomainError, Forbidden, InvalidInput, NotFound


class StagedCallNotFound(NotFound):
    """No staged call with this id that the caller decides (only the person behind the call or an
    admin may see it: anyone else gets this, so ids cannot be probed)."""

    code = "staged_call_not_found"


class AlreadyDecided(Conflict):
    """The staged call was decided (or expired) meanwhile: a second click, another tab, another
    admin. `details.status` is its status now."""

    code = "approval_already_decided"


class ArgumentsChanged(Conflict):
    """The stored arguments of a staged call no longer match their digest (or the tool's
    contract): it is not executed."""

    code = "approval_arguments_changed"


class ApprovalDenied(DomainError):
    """The tool result of a staged call a person denied (or whose run was cancelled)."""

    code = "approval_denied"
    http_status = 403


class ApprovalExpired(DomainError):
    """The tool result of a staged call nobody decided in time (CLAPILOT_APPROVAL_TTL, seconds)."""

    code = "approval_expired"
    http_status = 410


class StandingApprovalNotFound(NotFound):
    """No standing approval with this id that the caller may revoke."""

    code = "standing_approval_not_found"


class InvalidStandingApproval(InvalidInput):
    """A standing approval that may not be granted: changes to agents are always approved one by
    one, a narrowing the call has no object for, an expiry out of range."""

    code = "standing_approval_invalid"


class ApprovalTokenRequired(Forbidden):
    """A destructive, irreversible action: nothing was changed. `details` carries the signed
    `approval_token` and the exact `phrase` the person must send as a new chat message; then the
    unchanged call is retried with `approval_token`."""

    code = "approval_token_required"


class ApprovalTokenInvalid(Forbidden):
    """The approval token is not for this person, chat or exact call, expired, used already, or
    the phrase was not sent by the person as a new message of this chat."""

    code = "approval_token_invalid"


class PolicyInvalid(InvalidInput):
    """A policy names a tool that does not exist, an operation the tool does not have, an
    operation both allowed and forbidden, or a group row that allows (group rows only forbid)."""

    code = "approval_policy_invalid"


class PolicyAgentChange(Forbidden):
    """A policy may not let an agent change agents without asking: such operations are always
    approved one by one."""

    code = "approval_policy_agent_change"
