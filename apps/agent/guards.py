"""What stops a run from the inside: the stop signal (user cancellation and the tool-phase
budget share it), the supervised tool phase and the loop detector.

The signal is what a running tool sees through `ToolContext.is_cancelled()` and what the model
stream polls between chunks; only the runtime's finalizer turns it into a final status.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection, connections

from apps.core.services import get_setting

logger = logging.getLogger(__name__)

PHASE_BUDGET_SETTING = "agent_tool_phase_budget_seconds"
PHASE_BUDGET_DEFAULT = 300
LOOP_LIMIT_SETTING = "agent_loop_repeat_limit"
LOOP_LIMIT_DEFAULT = 3

CANCELLED = "cancelled"
PHASE_BUDGET = "phase_budget"
LEASE_LOST = "lease_lost"  # the run was finished elsewhere (apps.agent.leases): stop silently

PHASE_BUDGET_EXCEEDED = "PHASE_BUDGET_EXCEEDED"
TOOL_LOOP_DETECTED = "TOOL_LOOP_DETECTED"


def _seconds(name: str, default: float) -> float:
    return float(getattr(settings, name, default))


class Stop(Exception):
    """The signal fired: `reason` is CANCELLED or PHASE_BUDGET."""

    def __init__(self, reason: str, details: dict | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.details = details or {}


class RunSignal:
    """One per run. `check()` is cheap: an in-memory flag, plus a database look at the run's
    status at most every `CLAPILOT_AGENT_CANCEL_POLL` seconds (from whichever thread asks)."""

    def __init__(self, is_cancelling: Callable[[], bool]) -> None:
        self._event = threading.Event()
        self._is_cancelling = is_cancelling
        self._last_poll = 0.0
        self._poll = _seconds("CLAPILOT_AGENT_CANCEL_POLL", 0.5)
        self.reason = ""

    def trip(self, reason: str) -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def tripped(self) -> bool:
        return self._event.is_set()

    def check(self) -> bool:
        if self._event.is_set():
            return True
        now = time.monotonic()
        if now - self._last_poll >= self._poll:
            self._last_poll = now
            try:
                if self._is_cancelling():
                    self.trip(CANCELLED)
            except Exception:  # a failed poll must not break the tool that asked
                logger.warning("cancel poll failed", exc_info=True)
        return self._event.is_set()

    def poll_now(self) -> bool:
        self._last_poll = 0.0
        return self.check()


def phase_budget(run: Any) -> float | None:
    """Seconds a human-facing chat run's tool phase may take; background runs have none."""
    if getattr(run, "kind", "chat") != "chat":
        return None
    value = get_setting(PHASE_BUDGET_SETTING, PHASE_BUDGET_DEFAULT)
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = PHASE_BUDGET_DEFAULT
    return seconds if seconds > 0 else None


@dataclass
class PhaseOutcome:
    results: list | None  # None when the tools were still running at the abort
    elapsed: float
    still_running: bool = False


def run_phase(
    fn: Callable[[], list],
    signal: RunSignal,
    *,
    budget: float | None,
    on_progress: Callable[[float], None],
) -> PhaseOutcome:
    """Run one tool batch under supervision. In the worker (autocommit) the batch runs in a
    thread while this one polls the signal, enforces the budget and reports progress; after an
    abort the tools get `CLAPILOT_AGENT_ABORT_GRACE` seconds to notice the signal. Inside an
    open transaction (tests) the batch must stay on this connection: it runs inline and only a
    timer trips the budget, which cooperative tools see through `ctx.is_cancelled()`."""
    started = time.monotonic()
    if connection.in_atomic_block:
        timer = threading.Timer(budget, signal.trip, args=(PHASE_BUDGET,)) if budget else None
        if timer is not None:
            timer.daemon = True
            timer.start()
        try:
            return PhaseOutcome(fn(), time.monotonic() - started)
        finally:
            if timer is not None:
                timer.cancel()

    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["results"] = fn()
        except BaseException as exc:  # re-raised in the loop's thread
            box["error"] = exc
        finally:
            connections.close_all()

    thread = threading.Thread(target=target, name="agent-tools", daemon=True)
    thread.start()
    tick = _seconds("CLAPILOT_AGENT_SUPERVISE_TICK", 0.05)
    every = _seconds("CLAPILOT_AGENT_PROGRESS_SECONDS", 5.0)
    next_progress = started + every
    while thread.is_alive():
        thread.join(tick)
        now = time.monotonic()
        if budget is not None and now - started > budget:
            signal.trip(PHASE_BUDGET)
        if signal.check():
            thread.join(_seconds("CLAPILOT_AGENT_ABORT_GRACE", 5.0))
            break
        if now >= next_progress and thread.is_alive():
            next_progress = now + every
            on_progress(now - started)
    elapsed = time.monotonic() - started
    if "error" in box:
        raise box["error"]
    if thread.is_alive():
        logger.warning("tool batch still running %.1fs after the abort signal", elapsed)
        return PhaseOutcome(None, elapsed, still_running=True)
    return PhaseOutcome(box.get("results"), elapsed)


class LoopGuard:
    """Counts identical tool calls (name + canonical arguments) within a run."""

    def __init__(self, limit: int | None = None) -> None:
        if limit is None:
            try:
                limit = int(get_setting(LOOP_LIMIT_SETTING, LOOP_LIMIT_DEFAULT))
            except (TypeError, ValueError):
                limit = LOOP_LIMIT_DEFAULT
        self.limit = max(2, limit)
        self.counts: Counter[tuple[str, str]] = Counter()

    def offending(self, calls: list[dict]) -> dict | None:
        """Diagnostics when one of these calls reaches the limit (it is then not executed)."""
        for c in calls:
            key = (c["name"], canonical(c["arguments"]))
            self.counts[key] += 1
            if self.counts[key] >= self.limit:
                return {
                    "tool": c["name"],
                    "repeats": self.counts[key],
                    "limit": self.limit,
                    "arguments_digest": hashlib.sha256(key[1].encode()).hexdigest()[:16],
                }
        return None


def canonical(raw: str) -> str:
    try:
        return json.dumps(json.loads(raw or "{}"), sort_keys=True, separators=(",", ":"))
    except json.JSONDecodeError:
        return raw
