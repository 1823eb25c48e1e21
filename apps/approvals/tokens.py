"""Approval tokens (`tools.approval_tokens`): the person confirms a destructive, irreversible call
by sending an exact phrase as a new message in the same chat.

The token is signed (django.core.signing) and bound to the person, the chat, the tool and the
digest of the exact arguments (without the token itself); it lives ten minutes. Using it needs a
message of the person (role user: never one the model or a tool wrote) in that chat, sent after
the token was issued, that reads exactly the phrase. Using it writes an `ApprovalToken` row whose
`jti` is unique and whose `used_message` is one-to-one, in the tool's own transaction: a token
works once, a message confirms once, and a call that fails afterwards leaves both unused.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core import signing
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import BaseModel

from apps.agent.models import ChatSession, Message
from apps.approvals.errors import ApprovalTokenInvalid, ApprovalTokenRequired
from apps.approvals.models import ApprovalToken
from apps.tools.confirmation import TOKEN_FIELD
from apps.tools.context import ToolContext
from apps.tools.dispatcher import args_digest

SALT = "clapilot.approvals.token"
TTL_SECONDS = 10 * 60
KEYWORD = "FREIGABE"
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed
QUOTES = "\"'„“”‚‘’«»‹› "


def action_digest(tool: str, args: BaseModel | dict) -> str:
    """The exact call without its token: the same arguments retried give the same digest."""
    data = args.model_dump(mode="json") if isinstance(args, BaseModel) else dict(args)
    data.pop(TOKEN_FIELD, None)
    return args_digest({"tool": tool, "arguments": data})


def normalized(text: str) -> str:
    return " ".join((text or "").strip().strip(QUOTES).split()).casefold()


def check(ctx: ToolContext, tool: str, args: BaseModel, *, action: str, summary: str) -> None:
    """The contribution: without a token, issue one (nothing changes); with one, use it up or
    refuse."""
    token = getattr(args, TOKEN_FIELD, None)
    if not token:
        raise issue(ctx, tool, args, action=action, summary=summary)
    consume(ctx, tool, args, token)


def issue(
    ctx: ToolContext, tool: str, args: BaseModel, *, action: str, summary: str
) -> ApprovalTokenRequired:
    """The `approval_token_required` answer with a fresh token and its phrase."""
    user, session = _chat_of(ctx)
    if user is None or session is None:
        return ApprovalTokenRequired(
            _(
                "%(summary)s This cannot be undone, so a person must confirm it in a chat with the "
                "copilot. Nothing was changed."
            )
            % {"summary": summary}
        )
    code = "".join(secrets.choice(CODE_ALPHABET) for _i in range(4))
    phrase = f"{KEYWORD} {code} {action}"
    payload = {
        "j": secrets.token_hex(16),
        "u": user,
        "s": session,
        "t": tool,
        "d": action_digest(tool, args),
        "p": phrase,
        "i": time.time(),
    }
    token = signing.dumps(payload, salt=SALT, compress=True)
    message = _(
        "%(summary)s This cannot be undone. Nothing was changed. Ask the person to send exactly this "
        "message in this chat: “%(phrase)s” (valid for 10 minutes). After that message, call the "
        "tool again with the same arguments and approval_token set to the token in this answer."
    ) % {"summary": summary, "phrase": phrase}
    return ApprovalTokenRequired(
        message, details={"approval_token": token, "phrase": phrase, "expires_in_seconds": TTL_SECONDS}
    )


def consume(ctx: ToolContext, tool: str, args: BaseModel, token: str) -> ApprovalToken:
    """Use the token for exactly this call, atomically with the person's message that confirmed
    it; anything else answers `approval_token_invalid`."""
    try:
        data = signing.loads(token, salt=SALT, max_age=TTL_SECONDS)
    except signing.SignatureExpired:
        raise _invalid(
            _("The approval token has expired (10 minutes). Call the tool again without it.")
        ) from None
    except (signing.BadSignature, ValueError, TypeError):
        raise _invalid(_("The approval token is not valid.")) from None
    if not isinstance(data, dict) or not {"j", "u", "s", "t", "d", "p", "i"} <= set(data):
        raise _invalid(_("The approval token is not valid."))
    user, session = _chat_of(ctx)
    if data["u"] != user or data["s"] != session or data["t"] != tool:
        raise _invalid(_("The approval token belongs to another person, chat or tool."))
    if data["d"] != action_digest(tool, args):
        raise _invalid(
            _("The arguments differ from the confirmed call. Call the tool again without a token.")
        )
    issued = datetime.fromtimestamp(float(data["i"]), tz=UTC)
    wanted = normalized(data["p"])
    candidates = (
        Message.objects.select_for_update()
        .filter(session_id=session, session__user_id=user, role=Message.Role.USER, created_at__gte=issued)
        .order_by("-id")
    )
    confirming = next((m for m in candidates if normalized(m.content) == wanted), None)
    if confirming is None:
        raise _invalid(
            _("The person has not sent the confirmation phrase “%(phrase)s” as a new message in this chat.")
            % {"phrase": data["p"]}
        )
    try:
        with transaction.atomic():  # a savepoint: a lost race leaves the tool's transaction usable
            return ApprovalToken.objects.create(
                jti=str(data["j"])[:64],
                user_id=user,
                session_id=session,
                tool=tool,
                action_digest=data["d"],
                phrase=str(data["p"])[:200],
                expires_at=issued + timedelta(seconds=TTL_SECONDS),
                used_at=timezone.now(),
                used_message=confirming,
            )
    except IntegrityError:
        raise _invalid(_("This approval token or its confirmation message was used already.")) from None


def _chat_of(ctx: ToolContext) -> tuple[int | None, int | None]:
    """The signed-in person and their own chat the call runs in (None, None off a chat)."""
    user = ctx.principal.user
    session = _int(ctx.session_id)
    if user is None or session is None:
        return None, None
    if not ChatSession.objects.filter(pk=session, user=user).exists():
        return user.pk, None
    return user.pk, session


def _invalid(message: str) -> ApprovalTokenInvalid:
    return ApprovalTokenInvalid(message)


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
