"""Runs never stay orphaned.

A running run holds a lease (`Run.lease_expires_at`, `Run.worker`): `services.start_run` takes it,
the worker renews it every third of `CLAPILOT_RUN_LEASE_SECONDS` while the run is running or
stopping (`Renewer`, a small thread beside the loop), and `services.finish_run` drops it. A run
paused for an approval (waiting) holds no lease and no worker and is never an orphan.

When a worker dies (SIGKILL, OOM, a restart) its lease lapses. The beat job `sweep` (every
`CLAPILOT_RUN_SWEEP_SECONDS`) then finishes each such run as failed with `worker_lost` and a diagnosis (the
completed tool calls of its transcript, the last event, the partial answer streamed so far),
writes the recovery checkpoint (`apps.agent.recovery`) so the next run can continue, records the
status event that open pages and SSE clients see, which unlocks the chat, and tells the person
once (a notification keyed by the run). A stop requested for such a run finishes it at once
(`cancelled`, the same diagnosis, no notification: the person is there).

Queued runs whose job was lost (a broker that dropped it): a run still queued when its queue
deadline (`CLAPILOT_RUN_QUEUED_MAX_SECONDS`, default 10 minutes, kept in `lease_expires_at` while
queued) passes is re-enqueued once — harmless if the first job still exists, since only a queued
run starts (`services.start_run`) — and fails with `worker_lost` if it is still queued one more
deadline later.

A job is never acked late and a redelivered one does nothing for a run that is running (with a
live lease: its worker is alive; with a lapsed one: the sweep finishes it) or final, so the model
is never called twice for the same round. A run requeued to resume after an approval decision
(queued, rounds > 0) starts normally and continues from its transcript.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.db import close_old_connections, connection, transaction
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from apps.agent import recovery, services
from apps.agent.models import Message, Run, RunEvent
from apps.llm import markdown
from apps.notifications.services import notify

logger = logging.getLogger(__name__)

WORKER_LOST = "worker_lost"
BATCH = 100
NOTIFICATION_KIND = "agent.run_lost"
LIVE = (Run.Status.RUNNING, Run.Status.CANCELLING)


# --- the worker side ----------------------------------------------------------------------------
class Renewer:
    """Renews the lease of one run from a daemon thread while the loop runs (one UPDATE every
    third of the lease). When the run stops being this worker's — finished, paused for an
    approval, or finished by the sweep while this worker was cut off from the database — it stops
    renewing and calls `on_lost` with the run's status (None when unknown)."""

    def __init__(self, run: Run, on_lost: Callable[[str | None], None] | None = None) -> None:
        self.run_id = run.pk
        self.worker = run.worker
        self.on_lost = on_lost
        self.interval = max(services.lease_seconds() / 3, 0.05)
        self.renewals = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._main, name=f"run-lease-{run.pk}", daemon=True)

    def __enter__(self) -> Renewer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=max(self.interval * 3, 5))

    def _main(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                try:
                    held = services.renew_lease(self.run_id, self.worker)
                except Exception:  # a database hiccup: try again next time, the lease has slack
                    logger.warning("lease renewal of run %s failed", self.run_id, exc_info=True)
                    close_old_connections()
                    continue
                if held:
                    self.renewals += 1
                    continue
                if not self._stop.is_set() and self.on_lost is not None:
                    status = Run.objects.filter(pk=self.run_id).values_list("status", flat=True).first()
                    self.on_lost(status)
                return
        finally:
            connection.close()  # this thread's own connection


# --- diagnosis ------------------------------------------------------------------------------------
def _lapsed(now: datetime) -> Q:
    """Running or stopping, and no live lease (none at all: a run started before leases existed)."""
    return Q(status__in=LIVE) & (Q(lease_expires_at__lt=now) | Q(lease_expires_at__isnull=True))


def diagnose(run: Run) -> tuple[dict, str, list[dict]]:
    """What the lost run had done: diagnostics, its partial answer, its completed tool calls."""
    tools = [
        {
            "name": (m.metadata or {}).get("name", ""),
            "ok": bool((m.metadata or {}).get("ok", True)),
            "code": (m.metadata or {}).get("code", ""),
            "preview": m.content[: recovery.PREVIEW_CHARS],
        }
        for m in run.messages.filter(role=Message.Role.TOOL).order_by("id")
    ]
    last_message = run.messages.order_by("-id").values_list("created_at", flat=True).first()
    tokens = run.events.filter(kind=RunEvent.Kind.TOKEN)
    if last_message is not None:
        tokens = tokens.filter(created_at__gt=last_message)
    partial = "".join(
        str((p or {}).get("text", "")) for p in tokens.order_by("seq").values_list("payload", flat=True)
    )
    last = run.events.exclude(kind=RunEvent.Kind.TOKEN).order_by("-seq").first()
    last_event = {}
    if last is not None:
        last_event = {
            "kind": last.kind,
            **{k: v for k, v in (last.payload or {}).items() if k not in ("content", "html")},
        }
    diagnostics = {
        "abort_cause": WORKER_LOST,
        "worker": run.worker,
        "lease_expired_at": run.lease_expires_at.isoformat() if run.lease_expires_at else None,
        "provider": run.model_config.provider.name if run.model_config else "",
        "model": run.model_config.model_id if run.model_config else "",
        "rounds": run.rounds,
        "last_event": last_event,
        "completed_tools": [{k: t[k] for k in ("name", "ok", "code")} for t in tools][-recovery.MAX_TOOLS :],
        "partial_answer": partial[: recovery.PARTIAL_CHARS],
    }
    return diagnostics, partial, tools


# --- finishing ------------------------------------------------------------------------------------
def finish_lost(run_id: int, *, cancelled: bool = False, cause: str = WORKER_LOST) -> Run | None:
    """Finish one run whose worker is gone (its lease lapsed): failed `worker_lost` and the
    person told once, or — a stop the person asked for — cancelled. None when the run is not
    (or no longer) lost: finished meanwhile, renewed by a live worker, or locked by one."""
    now = timezone.now()
    with transaction.atomic():
        query = Run.objects.select_for_update(skip_locked=True, of=("self",)).select_related(
            "session", "user", "model_config__provider"
        )
        # lost while running (lapsed lease), or lost in the queue (its job is gone)
        lost = _lapsed(now) if cause == WORKER_LOST else Q(status=Run.Status.QUEUED)
        run = query.filter(lost, pk=run_id).first()
        if run is None:
            return None
        with translation.override(_language(run)):
            return _finish(run, cancelled=cancelled, cause=cause)


def _finish(run: Run, *, cancelled: bool, cause: str) -> Run:
    diagnostics, partial, tools = diagnose(run)
    diagnostics["abort_cause"] = cause
    status = Run.Status.CANCELLED if cancelled else Run.Status.FAILED
    if cancelled:
        reason = _("you stopped the run; its worker had stopped unexpectedly.")
        message = ""
    else:
        reason = _("the worker running this answer stopped unexpectedly (for example a restart).")
        message = _(
            "The copilot stopped unexpectedly while answering (its worker was lost). What it had "
            "done so far is kept; send a message to continue."
        )
    checkpoint = recovery.write(
        run, status=status, code=WORKER_LOST, reason=reason, partial_text=partial, tools=tools
    )
    if checkpoint is not None:
        html = markdown.render(recovery.shown_text(checkpoint))
        services.record_event(
            run,
            RunEvent.Kind.FINAL,
            {"message_id": checkpoint.pk, "content": checkpoint.content, "html": html},
        )
    services.finish_run(
        run,
        status,
        error_code="" if cancelled else WORKER_LOST,
        error_message=message,
        diagnostics=diagnostics,
    )
    if not cancelled and run.user is not None:
        _tell(run)
    logger.warning("run %s finished as %s: %s (worker %s)", run.pk, status, cause, run.worker or "-")
    return run


def _tell(run: Run) -> None:
    session = run.session
    url = reverse("chat:session", args=[session.pk]) if session.user_id == run.user_id else ""
    notify(
        run.user,
        kind=NOTIFICATION_KIND,
        title=_("The copilot stopped unexpectedly"),
        body=_("The answer in “%(chat)s” was interrupted. Send a message to continue.")
        % {"chat": session.title or _("Chat")},
        url=url,
        data={"run_id": run.pk, "session_id": session.pk, "code": WORKER_LOST},
        key=f"agent.run.{run.pk}.{WORKER_LOST}",
    )


def _language(run: Run) -> str | None:
    return (run.user.language if run.user is not None else "") or None


def cancel_if_lost(run: Run) -> Run:
    """A stop requested for a run whose worker is gone: finished at once (there is nobody to
    confirm it). Any other run is returned as it is."""
    lapsed = run.lease_expires_at is None or run.lease_expires_at < timezone.now()
    gone = run.status == Run.Status.CANCELLING and run.started_at is not None and lapsed
    if gone and finish_lost(run.pk, cancelled=True) is not None:
        run.refresh_from_db()
    return run


# --- the beat job ---------------------------------------------------------------------------------
def selections(now: datetime) -> dict[str, QuerySet[Run]]:
    """The sweep's three selections (bench/run_sweep.py checks each uses an index)."""
    deadline = now - timedelta(seconds=services.queued_max_seconds())
    queued = Run.objects.filter(status=Run.Status.QUEUED)
    return {
        "lost while running": Run.objects.filter(_lapsed(now)),
        # A run queued again to resume (after an approval decision) carries no deadline.
        "queued to resume, no deadline": queued.filter(lease_expires_at__isnull=True, rounds__gt=0),
        "lost in the queue": queued.filter(
            Q(lease_expires_at__lt=now) | Q(lease_expires_at__isnull=True, created_at__lt=deadline)
        ),
    }


def sweep() -> dict[str, Any]:
    """Finish every run whose lease lapsed; re-enqueue (once) or fail queued runs whose job was
    lost. Answers what it did, for the log."""
    now = timezone.now()
    found = selections(now)
    lost = list(found["lost while running"].order_by("pk").values_list("pk", flat=True)[:BATCH])
    finished = sum(1 for pk in lost if finish_lost(pk) is not None)
    requeued = failed = 0
    # A resumed run's clock starts now, at the first sweep that sees it.
    until = now + timedelta(seconds=services.queued_max_seconds())
    found["queued to resume, no deadline"].update(lease_expires_at=until)
    for pk in found["lost in the queue"].order_by("pk").values_list("pk", flat=True)[:BATCH]:
        outcome = _lost_in_queue(pk, now)
        requeued += outcome == "requeued"
        failed += outcome == "failed"
    return {"finished": finished, "requeued": requeued, "failed": failed}


def _lost_in_queue(run_id: int, now: datetime) -> str:
    with transaction.atomic():
        run = (
            Run.objects.select_for_update(skip_locked=True)
            .filter(pk=run_id, status=Run.Status.QUEUED)
            .first()
        )
        if run is None:
            return "skipped"
        if not (run.diagnostics or {}).get("requeued"):
            diagnostics = {**(run.diagnostics or {}), "requeued": now.isoformat()}
            until = now + timedelta(seconds=services.queued_max_seconds())
            Run.objects.filter(pk=run.pk).update(lease_expires_at=until, diagnostics=diagnostics)
            transaction.on_commit(lambda: services.enqueue_run(run_id))
            logger.warning("run %s waited too long in the queue; its job was sent again", run_id)
            return "requeued"
    return "failed" if finish_lost(run_id, cause="queue_lost") is not None else "skipped"
