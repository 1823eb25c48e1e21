"""The only writer of the agent domain: sessions, messages, runs and their events.

Pages, the REST API, the Celery job and the runtime all go through these functions, so the
owner check, run limits and live publishing are written once.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterable
from datetime import timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, F, OuterRef, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.accounts.services import require_office_admin
from apps.agent import live, outcomes
from apps.agent.contracts import (
    CONTENT_MAX,
    TITLE_MAX,
    ChatSessionCreate,
    ChatSessionEntry,
    ChatSessionRename,
    MessageCreate,
    MoAPresetSave,
    RunEventOut,
)
from apps.agent.errors import (
    AttachmentNotFound,
    CancelUnconfirmed,
    InvalidChatInput,
    NoModelConfigured,
    RunInProgress,
    RunNotFound,
    RunNotRetryable,
    SessionNotFound,
)
from apps.agent.models import ChatSession, Message, MoAPreset, Run, RunEvent
from apps.core import queue
from apps.core.db.lookup import delete_existing, new_or_existing
from apps.core.errors import Forbidden, InvalidInput
from apps.documents import services as documents
from apps.documents.errors import DocumentNotFound
from apps.llm.models import ModelConfig
from apps.llm.selection import default_model, offered_models
from apps.mutations import actions
from apps.mutations.services import record_mutation

TITLE_LENGTH = 60  # the fallback title: the question's first words
DEFAULT_ROUNDS = 25
SEARCH_MAX = 200
SESSION_LIST = "chat-sessions"  # data-list of the chat list on the page
SESSION_UPDATED = "chat.session.updated"
SESSION_DELETED = "chat.session.deleted"
# The model that answers and, for a virtual `moa/<slug>` model, its preset.
Picked = tuple[ModelConfig, MoAPreset | None]
# A cost budget as a caller sends it (a chat message's is a validated Decimal already).
Amount = Decimal | str | int | float | None
# A run paused for an approval (waiting) still holds its chat: the decision resumes it there.
ACTIVE = (Run.Status.QUEUED, Run.Status.RUNNING, Run.Status.CANCELLING, Run.Status.WAITING)


# --- sessions -------------------------------------------------------------------------------
def _owner(principal: Principal):
    if principal.user is None:
        raise Forbidden(_("Chat sessions belong to a signed-in user."))
    return principal.user


def list_sessions(principal: Principal):
    return ChatSession.objects.filter(user=_owner(principal))


def get_session(principal: Principal, session_id: int) -> ChatSession:
    session = ChatSession.objects.filter(pk=session_id, user=_owner(principal)).first()
    if session is None:
        raise SessionNotFound(_("This chat does not exist or is not yours."))
    return session


def create_session(principal: Principal, data: ChatSessionCreate | None = None) -> ChatSession:
    title = " ".join(data.title.split()) if data is not None else ""
    source = ChatSession.TitleSource.USER if title else ChatSession.TitleSource.FALLBACK
    return ChatSession.objects.create(user=_owner(principal), title=title, title_source=source)


def search_sessions(principal: Principal, query: str = ""):
    """The principal's chats whose title or a message (question or answer) contains `query`
    (case-insensitive, literal: `%` and `_` match themselves); all of them for an empty one."""
    sessions = list_sessions(principal)
    query = " ".join((query or "").split())[:SEARCH_MAX]
    if not query:
        return sessions
    texts = Message.objects.filter(
        session=OuterRef("pk"), role__in=[Message.Role.USER, Message.Role.ASSISTANT], content__icontains=query
    )
    return sessions.filter(Q(title__icontains=query) | Exists(texts))


def rename_session(principal: Principal, session_id: int, data: ChatSessionRename) -> ChatSession:
    """Give a chat the user's own name (never replaced by a generated title afterwards)."""
    title = " ".join(data.title.split())
    with transaction.atomic():
        session = get_session(principal, session_id)
        session.title = title
        session.title_source = ChatSession.TitleSource.USER
        session.save(update_fields=["title", "title_source", "updated_at"])
        _session_changed(session, principal.user)
    return session


def delete_session(principal: Principal, session_id: int, *, as_admin: bool = False) -> int:
    """Delete a chat with its messages and runs; refused while the copilot is answering in it
    (the run would write into a chat that is gone). Answers the deleted id. `as_admin`: any
    person's chat (the admin site), else only the principal's own."""
    with transaction.atomic():
        pk = session_id if as_admin else get_session(principal, session_id).pk
        session = ChatSession.objects.select_for_update().filter(pk=pk).first()
        if session is None:
            raise SessionNotFound(_("This chat does not exist or is not yours."))
        if session.runs.filter(status__in=ACTIVE).exists():
            raise RunInProgress(_("Stop the copilot before deleting this chat."))
        pk, user = session.pk, session.user
        session.delete()
        if user is not None:  # a service principal's conversation is on nobody's chat list
            record_mutation(
                audience="user",
                user=user,
                topic=SESSION_DELETED,
                ui_actions=[actions.remove(SESSION_LIST, str(pk))],
            )
    return pk


def set_generated_title(session_id: int, title: str) -> bool:
    """Store the model's title unless the chat has been named (or deleted) meanwhile; the open
    chat pages of the user show it at once. True when it was stored."""
    title = shorten(" ".join(title.split()), TITLE_MAX)
    with transaction.atomic():
        session = (
            ChatSession.objects.select_for_update(of=("self",))
            .filter(pk=session_id, title_source=ChatSession.TitleSource.FALLBACK)
            .select_related("user")
            .first()
        )
        if session is None or not title:
            return False
        # Not `save()`: a title is no activity, the chat keeps its place in the list.
        ChatSession.objects.filter(pk=session.pk).update(
            title=title, title_source=ChatSession.TitleSource.GENERATED
        )
        session.title = title
        _session_changed(session)
    return True


def _session_changed(session: ChatSession, user=None) -> None:
    """Open chat pages of the user update the chat's entry (private event, no toast: no announce_key).
    A service principal's conversation is on nobody's chat list: no event."""
    if (user or session.user) is None:
        return
    record = ChatSessionEntry.record(session)
    record_mutation(
        audience="user",
        user=user or session.user,
        topic=SESSION_UPDATED,
        ui_actions=[actions.upsert(SESSION_LIST, str(session.pk), record)],
    )


def fallback_title(content: str) -> str:
    """The first words of the question (its first line), cut at a word boundary."""
    first = next((line for line in content.splitlines() if line.strip()), "")
    return shorten(" ".join(first.split()), TITLE_LENGTH)


def shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-") + "…"


def get_run(principal: Principal, run_id: int) -> Run:
    run = Run.objects.select_related("session").filter(pk=run_id, session__user=_owner(principal)).first()
    if run is None:
        raise RunNotFound(_("This run does not exist or is not yours."))
    return run


def delete_run_as_admin(run_id: int) -> int:
    """Delete one finished run with its events (the admin site; its chat's messages stay and
    forget the run). Refused while it is queued or running: the worker would write into a run
    that is gone. Answers the deleted id."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            raise RunNotFound(_("This run does not exist or is not yours."))
        if run.status in ACTIVE:
            raise RunInProgress(_("Stop the copilot before deleting this run."))
        pk = run.pk
        run.delete()
    return pk


# --- posting and cancelling -----------------------------------------------------------------
def post_user_message(
    principal: Principal,
    session_id: int,
    message: MessageCreate,
    *,
    time_zone: str = "",
    kind: str = Run.Kind.CHAT,
    require_neutralization: bool = False,
) -> Run:
    """Store the user's message and queue a run for it; the worker starts after the commit.
    `kind` background (jobs, automations) has no tool-phase budget; `require_neutralization` is
    set by callers whose data source demands it. The message's `document_ids` are documents
    attached to it (already uploaded, visible to the principal): stored in its metadata."""
    model = pick_model(message.model_id)
    attachments = attached_documents(principal, message.document_ids or [])
    with transaction.atomic():
        session = ChatSession.objects.select_for_update().get(pk=get_session(principal, session_id).pk)
        metadata = {"document_ids": [a["id"] for a in attachments], "attachments": attachments}
        return queue_run(
            principal,
            session,
            message.content,
            model=model,
            rounds=message.max_rounds or DEFAULT_ROUNDS,
            kind=kind,
            budget=message.budget,
            time_zone=time_zone,
            require_neutralization=require_neutralization,
            metadata=metadata if attachments else {},
        )


def checked_content(content: str, max_rounds: int | str | None) -> tuple[str, int]:
    """A headless run's prompt and round limit (a chat message is checked by `MessageCreate`)."""
    content = (content or "").strip()
    if not content:
        raise InvalidChatInput(_("The message is empty."))
    if len(content) > CONTENT_MAX:
        raise InvalidChatInput(_("The message is longer than %(max)s characters.") % {"max": CONTENT_MAX})
    rounds = DEFAULT_ROUNDS if max_rounds in (None, "") else as_int(max_rounds)
    if rounds is None or not 1 <= rounds <= 100:
        raise InvalidChatInput(_("max_rounds must be between 1 and 100."))
    return content, rounds


def queue_run(
    principal: Principal,
    session: ChatSession,
    content: str,
    *,
    model: Picked,
    rounds: int,
    kind: str,
    budget: Amount = None,
    time_zone: str = "",
    require_neutralization: bool = False,
    metadata: dict | None = None,
    parent: Run | None = None,
    interactive: bool = True,
    specialist_id: int | None = None,
    allowed_tools: list[str] | None = None,
    retry_of: Run | None = None,
) -> Run:
    """In the caller's transaction, with `session` locked: the run (recording its principal) and
    its prompt message; the job is queued once committed. One run at a time per conversation."""
    if session.runs.filter(status__in=ACTIVE).exists():
        raise RunInProgress(_("The copilot is still answering in this chat."))
    fresh = not session.title and bool(content)
    if fresh:
        session.title = fallback_title(content)
    session.save(update_fields=["title", "updated_at"])
    if fresh:
        _session_changed(session, principal.user)
    # A chat whose earlier run read a source marked "neutralize always" carries that data in
    # its transcript: every later run of the chat is neutralized, too.
    sticky = session.runs.filter(require_neutralization=True).exists()
    config, preset = model
    run = Run.objects.create(
        session=session,
        user=principal.user or principal.acting_user,
        service_principal=principal.service,
        model_config=config,
        model_label=preset.virtual_id if preset else config.label,
        moa_preset=preset,
        kind=kind,
        require_neutralization=require_neutralization or sticky,
        max_rounds=rounds,
        budget=_decimal(budget),
        time_zone=(time_zone or "")[:64],
        lease_expires_at=timezone.now() + timedelta(seconds=queued_max_seconds()),
        parent=parent,
        interactive=interactive,
        specialist_id=specialist_id,
        allowed_tools=allowed_tools,
        retry_of=retry_of,
    )
    if content:  # a retry re-runs the stored question: no new message
        Message.objects.create(
            session=session, run=run, role=Message.Role.USER, content=content, metadata=metadata or {}
        )
    run_id = run.pk
    transaction.on_commit(lambda: _enqueue(run_id))
    return run


def attached_documents(principal: Principal, document_ids: list[int]) -> list[dict]:
    """The attachments of a message as `{id, title, filename}`, in the given order (repeats
    once); every id must be a document the principal may see (else `attachment_not_found`,
    nothing written)."""
    found = []
    for document_id in dict.fromkeys(document_ids):
        try:
            document = documents.get_document(principal, document_id, with_text=False)
        except DocumentNotFound:
            raise AttachmentNotFound(
                _("There is no document with id %(id)s.") % {"id": document_id},
                details={"document_id": document_id},
            ) from None
        found.append({"id": document.pk, "title": document.title, "filename": document.original_filename})
    return found


def _enqueue(run_id: int) -> None:
    enqueue_run(run_id)


def enqueue_run(run_id: int) -> None:
    """Send the run's job now (callers queue it on commit). A second job for the same run is
    harmless: only a queued run starts (`start_run`)."""
    queue.send("apps.agent.jobs.run_agent_job", run_id)  # by name: the job runs the runtime


def model_choices() -> list[tuple[str, str]]:
    """(value, label) of every model a user may pick, the virtual `moa/<slug>` ones last."""
    from apps.agent import moa  # moa records its usage through this module

    real = [(str(m.pk), m.label) for m in offered_models()]
    return real + [(p.virtual_id, f"{p.name} ({p.virtual_id})") for p in moa.presets()]


def pick_model(model_id: str | int | None) -> Picked:
    """The model that answers and, for a virtual `moa/<slug>` id, its preset."""
    from apps.agent import moa  # moa records its usage through this module

    if isinstance(model_id, str) and model_id.startswith(moa.PREFIX):
        preset = moa.find(model_id)
        if preset is None:
            raise InvalidChatInput(_("This model is not available."))
        return preset.aggregator, preset
    return _pick_real_model(model_id), None


def _pick_real_model(model_id: str | int | None) -> ModelConfig:
    if model_id not in (None, ""):
        config = offered_models().filter(pk=as_int(model_id)).first()
        if config is None:
            raise InvalidChatInput(_("This model is not available."))
        return config
    config = default_model()
    if config is None:
        raise NoModelConfigured(_("No model provider is configured yet."))
    return config


def cancel_run(principal: Principal, run_id: int) -> Run:
    """Ask a run to stop. Only the runtime's finalizer writes `cancelled`."""
    run = get_run(principal, run_id)
    return request_cancel(run)


def cancel_and_wait(principal: Principal, run_id: int, timeout: float | None = None) -> Run:
    """Ask a run to stop and wait (bounded) for its finalizer. A run that never started has no
    tool to signal: it is finalized here, with the same conditional update the worker uses."""
    run = cancel_run(principal, run_id)
    if run.is_final:
        return run
    Run.objects.filter(pk=run.pk, status=Run.Status.CANCELLING, started_at__isnull=True).update(
        status=Run.Status.CANCELLED, finished_at=timezone.now()
    )
    run.refresh_from_db()
    if run.status == Run.Status.CANCELLED and not run.events.filter(kind=RunEvent.Kind.STATUS).exists():
        record_event(run, RunEvent.Kind.STATUS, outcomes.status_payload(run))
    limit = float(getattr(settings, "CLAPILOT_AGENT_CANCEL_WAIT", 10) if timeout is None else timeout)
    deadline = time.monotonic() + limit
    while not run.is_final and time.monotonic() < deadline:
        time.sleep(0.1)
        run.refresh_from_db()
    if not run.is_final:
        raise CancelUnconfirmed(
            _("The run did not confirm the stop within %(s)s seconds; it is still stopping.")
            % {"s": int(limit)},
            details={"run_id": run.pk, "status": run.status},
        )
    return run


def request_cancel(run: Run) -> Run:
    if run.status == Run.Status.WAITING:  # paused on a staged call: no worker to signal
        from apps.agent import waiting  # it writes through this module

        if waiting.cancel_waiting(run):
            return run
    Run.objects.filter(pk=run.pk, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).update(
        status=Run.Status.CANCELLING
    )
    run.refresh_from_db()
    from apps.agent import leases  # a run whose worker is gone (lease lapsed) is finished at once

    return leases.cancel_if_lost(run)


def retry_run(principal: Principal, run_id: int) -> Run:
    """ "Try again": queue a new run for the turn of a stopped or failed answer, with the same
    model and limits; it answers the question already stored (no new message). Only the chat's
    last answer, only when it failed or was stopped, never while a run is active there."""
    run = get_run(principal, run_id)
    with transaction.atomic():
        session = ChatSession.objects.select_for_update().get(pk=run.session_id)
        if session.runs.filter(status__in=ACTIVE).exists():
            raise RunInProgress(_("The copilot is still answering in this chat."))
        if session.runs.order_by("-id").values_list("pk", flat=True).first() != run.pk:
            raise RunNotRetryable(
                _("Only the last answer of a chat can be tried again."),
                details={"run_id": run.pk, "reason": "not_last_turn"},
            )
        if run.status not in outcomes.RETRYABLE:
            raise RunNotRetryable(
                _("Only a failed or stopped answer can be tried again."),
                details={"run_id": run.pk, "reason": "not_failed", "status": run.status},
            )
        return queue_run(
            principal,
            session,
            "",
            model=_retry_model(run),
            rounds=run.max_rounds,
            kind=run.kind,
            budget=run.budget,
            time_zone=run.time_zone,
            require_neutralization=run.require_neutralization,
            retry_of=run,
        )


def _retry_model(run: Run) -> Picked:
    """The model the failed run used while it is still offered, else today's default."""
    chosen = run.moa_preset.virtual_id if run.moa_preset else run.model_config_id
    try:
        return pick_model(chosen)
    except InvalidChatInput:
        return pick_model(None)


# --- recording (called by the runtime) ------------------------------------------------------
def lease_seconds() -> float:
    """How long a running run's lease lasts; its worker renews it every third of that."""
    return float(getattr(settings, "CLAPILOT_RUN_LEASE_SECONDS", 30))


def queued_max_seconds() -> float:
    """How long a queued run may wait for a worker before the orphan sweep acts on it."""
    return float(getattr(settings, "CLAPILOT_RUN_QUEUED_MAX_SECONDS", 600))


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"[:200]


def start_run(run: Run) -> bool:
    """queued → running, taking the lease for this worker; False when the run was cancelled,
    finished or taken meanwhile. Only a queued run starts: this conditional update is what keeps
    a redelivered job (a run already running with a live lease, or final) from calling the model
    twice for the same round. A run requeued to resume (rounds > 0) keeps its first start."""
    now = timezone.now()
    started = Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
        status=Run.Status.RUNNING,
        started_at=Coalesce(F("started_at"), Value(now)),
        lease_expires_at=now + timedelta(seconds=lease_seconds()),
        worker=worker_name(),
    )
    run.refresh_from_db()
    return bool(started)


def renew_lease(run_id: int, worker: str) -> bool:
    """Extend the lease of a run this worker still holds (running or stopping): one UPDATE.
    False once the run is no longer this worker's (finished, paused for an approval, swept)."""
    until = timezone.now() + timedelta(seconds=lease_seconds())
    return bool(
        Run.objects.filter(
            pk=run_id, status__in=[Run.Status.RUNNING, Run.Status.CANCELLING], worker=worker
        ).update(lease_expires_at=until)
    )


def is_cancelling(run: Run) -> bool:
    return Run.objects.filter(pk=run.pk, status=Run.Status.CANCELLING).exists()


def add_message(
    run: Run,
    role: str,
    content: str = "",
    *,
    tool_calls: list[dict] | None = None,
    tool_call_id: str = "",
    metadata: dict | None = None,
) -> Message:
    return Message.objects.create(
        session_id=run.session_id,
        run=run,
        role=role,
        content=content,
        tool_calls=tool_calls or [],
        tool_call_id=tool_call_id,
        metadata=metadata or {},
    )


def add_messages(run: Run, rows: list[dict]) -> list[Message]:
    """Several messages of one run in one statement (a tool batch's results)."""
    return Message.objects.bulk_create(Message(session_id=run.session_id, run=run, **row) for row in rows)


def record_event(run: Run, kind: str, payload: dict | None = None) -> RunEvent:
    """Persist the event, then publish it once committed (so a replay never misses it)."""
    return record_events(run, [(kind, payload or {})])[0]


_INSERT_EVENTS = """
    INSERT INTO {table} (run_id, seq, kind, payload, created_at)
    SELECT %s, base.m + v.n, v.kind, v.payload::jsonb, %s
    FROM (SELECT COALESCE(MAX(seq), 0) AS m FROM {table} WHERE run_id = %s) AS base,
         (VALUES {rows}) AS v(n, kind, payload)
    RETURNING id, seq
"""


def record_events(run: Run, items: list[tuple[str, dict]]) -> list[RunEvent]:
    """Several events of one run in one statement (the sequence numbers follow the last stored
    one); each is published once committed. The loop's hot path: one round trip, not four."""
    if not items:
        return []
    now = timezone.now()
    rows = ", ".join(["(%s::int, %s::varchar, %s::text)"] * len(items))
    params: list[Any] = [run.pk, now, run.pk]
    for n, (kind, payload) in enumerate(items, 1):
        params += [n, kind, json.dumps(payload, cls=DjangoJSONEncoder)]
    sql = _INSERT_EVENTS.format(table=RunEvent._meta.db_table, rows=rows)
    for attempt in range(3):
        try:
            # Nested: a savepoint, so a lost race on the sequence number does not break the
            # caller's transaction. Alone: its own transaction with an asynchronous commit, as
            # events are a stream (no fsync wait per token); transcript rows stay synchronous.
            nested = connection.in_atomic_block
            with transaction.atomic(), connection.cursor() as cursor:
                if not nested:
                    cursor.execute("SET LOCAL synchronous_commit TO off")
                cursor.execute(sql, params)
                ids = sorted(cursor.fetchall(), key=lambda r: r[1])
            break
        except IntegrityError:  # another writer took the same sequence number
            if attempt == 2:
                raise
    events = [
        RunEvent(
            pk=pk,
            run_id=run.pk,
            seq=seq,
            kind=kind,
            payload=json.loads(json.dumps(payload, cls=DjangoJSONEncoder)),
            created_at=now,
        )
        for (pk, seq), (kind, payload) in zip(ids, items, strict=True)
    ]
    session_id = run.session_id
    for event in events:
        data = RunEventOut.record(event)
        transaction.on_commit(lambda data=data: live.publish(session_id, data))
    return events


def save_usage(
    run: Run, prompt_tokens: int, completion_tokens: int, *, model: ModelConfig | None = None
) -> None:
    """Add one model call's usage; its cost at the prices of the model that answered."""
    run.prompt_tokens += prompt_tokens
    run.completion_tokens += completion_tokens
    priced = model or run.model_config
    if priced is not None:
        run.cost += priced.cost(prompt_tokens, completion_tokens)
    run.save(update_fields=["prompt_tokens", "completion_tokens", "cost", "rounds"])


NEUTRALIZATION = "neutralization"  # diagnostics key: which sources demanded it, when


def require_neutralization(run: Run, sources: Iterable[str]) -> bool:
    """Record on the run that a source marked "neutralize always" (or a name of one in the
    request) demanded neutralization; every later model call of the run and of its chat is
    neutralized. True when this changed the run."""
    sources = sorted({str(s) for s in sources})
    record = dict((run.diagnostics or {}).get(NEUTRALIZATION) or {})
    known = set(record.get("required_by") or [])
    if run.require_neutralization and known >= set(sources):
        return False
    record["required_by"] = sorted(known | set(sources))[:50]
    record.setdefault("since_round", run.rounds)
    run.require_neutralization = True
    run.diagnostics = {**(run.diagnostics or {}), NEUTRALIZATION: record}
    Run.objects.filter(pk=run.pk).update(require_neutralization=True, diagnostics=run.diagnostics)
    return True


FOREIGN_CONTENT = "foreign_content"  # diagnostics key: the run has read outside text (approvals)


def mark_foreign_content(run: Run) -> bool:
    """Record on the run that a tool brought outside text into it: from then on, operations that
    wait for a person by default wait even where a policy allows them, also after a resume."""
    if (run.diagnostics or {}).get(FOREIGN_CONTENT):
        return False
    run.diagnostics = {**(run.diagnostics or {}), FOREIGN_CONTENT: {"since_round": run.rounds}}
    Run.objects.filter(pk=run.pk).update(diagnostics=run.diagnostics)
    return True


def pause_for_approval(run: Run, approvals: list[dict]) -> bool:
    """running → waiting_approval, giving up the lease (a waiting run holds no worker), with one
    APPROVAL event per staged call and the STATUS event, in one transaction. False when the run
    is no longer running (cancelled meanwhile): the loop goes on and stops at its next check."""
    with transaction.atomic():
        if not Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(
            status=Run.Status.WAITING, lease_expires_at=None
        ):
            return False
        run.status, run.lease_expires_at = Run.Status.WAITING, None
        items = [(RunEvent.Kind.APPROVAL, payload) for payload in approvals]
        record_events(run, [*items, (RunEvent.Kind.STATUS, {"status": run.status, "error_code": ""})])
    return True


def finish_run(
    run: Run, status: str, *, error_code: str = "", error_message: str = "", diagnostics=None
) -> Run:
    """Write the run's final status (and its STATUS event) unless it is final already: a run the
    orphan sweep finished while its worker was cut off stays as the sweep wrote it."""
    kept = {k: v for k, v in (run.diagnostics or {}).items() if k == NEUTRALIZATION}
    fields = dict(
        status=status,
        error_code=error_code[:100],
        error_message=error_message,
        diagnostics={**kept, **(diagnostics or {})},
        finished_at=timezone.now(),
        rounds=run.rounds,
        lease_expires_at=None,
    )
    if not Run.objects.filter(pk=run.pk).exclude(status__in=Run.FINAL).update(**fields):
        run.refresh_from_db()
        return run
    for name, value in fields.items():
        setattr(run, name, value)
    record_event(run, RunEvent.Kind.STATUS, outcomes.status_payload(run))
    return run


def as_int(value: str | int | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _decimal(value: Amount) -> Decimal | None:
    if value in (None, ""):
        return None
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise InvalidChatInput(_("The budget must be a number.")) from None
    if amount <= 0:
        raise InvalidChatInput(_("The budget must be positive."))
    return amount


# --- Mixture-of-Agents presets (admin only) -------------------------------------------------------
def save_moa_preset(principal: Principal, data: MoAPresetSave, preset_id: int | None = None) -> MoAPreset:
    """Add a preset (preset_id None) or change one. Its models must exist; a taken slug is
    `invalid_input` on `slug`."""
    require_office_admin(principal)
    wanted = {data.aggregator_id, *data.reference_model_ids}
    known = set(ModelConfig.objects.filter(pk__in=wanted).values_list("pk", flat=True))
    if data.aggregator_id not in known:
        raise InvalidInput.field(
            "aggregator_id", _("There is no model with id %(id)s.") % {"id": data.aggregator_id}
        )
    missing = sorted(set(data.reference_model_ids) - known)
    if missing:
        raise InvalidInput.field(
            "reference_model_ids",
            _("There is no model with id %(id)s.") % {"id": ", ".join(map(str, missing))},
        )
    preset = new_or_existing(MoAPreset, preset_id, _("There is no Mixture-of-Agents preset with id %(id)s."))
    preset.slug, preset.name, preset.prompt, preset.enabled = data.slug, data.name, data.prompt, data.enabled
    preset.aggregator_id = data.aggregator_id
    try:
        with transaction.atomic():
            preset.save()
            preset.reference_models.set(data.reference_model_ids)
    except IntegrityError:
        raise InvalidInput.field("slug", _("is already used by another preset")) from None
    return preset


@transaction.atomic
def delete_moa_preset(principal: Principal, preset_id: int) -> None:
    """Runs that used the preset keep their record (their link becomes empty)."""
    require_office_admin(principal)
    delete_existing(MoAPreset, preset_id, _("There is no Mixture-of-Agents preset with id %(id)s."))
