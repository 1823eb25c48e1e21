"""The ReAct loop: call the model, run the tools it asks for, feed results back, until it
answers in text, a limit is hit, the run is cancelled or the provider fails.

`run_agent(run_id)` is called by the Celery job; every message and event is persisted through
`apps.agent.services`, so a reconnecting page replays what it missed.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal, PrincipalError
from apps.agent import acting, guards, leases, links, prompting, recovery, services, summarize, titles
from apps.agent.guards import Stop
from apps.agent.labels import tool_label
from apps.agent.moa import Mixture
from apps.agent.models import Message, Run, RunEvent
from apps.agent.toolbox import Toolbox
from apps.core import plugins
from apps.llm import client as llm
from apps.llm import markdown, neutralize
from apps.llm.errors import ProviderError
from apps.llm.neutralize import Gate
from apps.tools import registry
from apps.tools.context import ToolContext
from apps.tools.dispatcher import ToolCall, execute_batch
from apps.tools.results import ToolResult

logger = logging.getLogger(__name__)

TOKEN_FLUSH_SECONDS = 0.1
TOKEN_FLUSH_CHARS = 400


@dataclass
class RoundContext:
    """What a context provider (RAG hook) gets before each round."""

    run: Run
    round: int
    messages: list[dict]
    # Documents the user attached to messages of this conversation (known files for the RAG hook).
    attached_document_ids: tuple[int, ...] = ()
    # Who the run acts as (a user, or a service principal with the acting user): a provider reads
    # with this scope, never with the chat's owner (a service principal's chat has none).
    principal: Principal | None = None

    def __post_init__(self) -> None:
        if self.principal is None:  # built by hand (tests, other callers): the run's own
            try:
                self.principal = acting.principal_of(self.run)
            except PrincipalError:
                self.principal = None


CONTEXT_PROVIDERS = "agent.context_providers"


def context_providers() -> tuple[Callable[[RoundContext], str | None], ...]:
    """The RAG hooks: what the apps declare for `agent.context_providers` (`extends` on their
    `DomainApp`), callables taking a `RoundContext` and returning extra context text or None.
    A failing provider is logged and skipped."""
    return plugins.contributions(CONTEXT_PROVIDERS)


ANSWER_HOOKS = "agent.answer_hooks"


def answer_hooks() -> tuple[Callable[[Run], None], ...]:
    """What the apps declare for `agent.answer_hooks`: callables taking a run that just completed
    with an answer (learning queues its extraction job there). They must be quick (queue a job,
    not call a model); a failing hook is logged and skipped, the answer stays delivered."""
    return plugins.contributions(ANSWER_HOOKS)


def _after_answer(run: Run) -> None:
    for hook in answer_hooks():
        try:
            hook(run)
        except Exception:
            logger.warning("answer hook %r failed for run %s", hook, run.pk, exc_info=True)


def _reads_only(name: str) -> bool:
    declared = registry.get(name)
    return declared is not None and declared.read_only


class LoopDetected(Exception):
    def __init__(self, details: dict) -> None:
        super().__init__("loop")
        self.details = details


@dataclass
class _State:
    last_event: dict = field(default_factory=dict)
    last_tool: dict = field(default_factory=dict)
    tool_calls: int = 0
    partial: str = ""  # streamed text of the model call in flight (not yet a message)
    completed: list[dict] = field(default_factory=list)  # this run's finished tool calls


def run_agent(run_id: int) -> Run:
    run = Run.objects.select_related(
        "session", "user", "service_principal", "model_config__provider", "moa_preset__aggregator__provider"
    ).get(pk=run_id)
    if run.is_final:
        return run
    if not services.start_run(run):
        if run.status == Run.Status.CANCELLING:
            return services.finish_run(run, Run.Status.CANCELLED)
        return run  # already running elsewhere (a redelivered job)
    loop = _Loop(run)
    # The lease thread renews the run's lease while the loop runs; if the run stops being this
    # worker's (the sweep finished it while the worker was cut off), the loop stops at its next check.
    renewer = leases.Renewer(run, on_lost=loop.lease_lost)
    with renewer, translation.override(_language(run)):
        loop.execute()
    return run


def _language(run: Run) -> str | None:
    """The language of the person the run acts for (the acting user behind a service principal)."""
    person = run.user
    return (person.language if person is not None else "") or None


class _Loop:
    def __init__(self, run: Run) -> None:
        self.run = run
        self.state = _State()
        self.model = run.model_config
        self.signal = guards.RunSignal(lambda: services.is_cancelling(run))
        self.loop_guard = guards.LoopGuard()
        self.toolbox = Toolbox()
        self.budget = guards.phase_budget(run)
        self.gate: Gate | None = None
        # What the run's tools and context providers read: a source marked "neutralize always"
        # demands neutralization for every later model call (`_escalate`).
        self.demands = neutralize.Demands()
        self.mixture: Mixture | None = None
        self.checkpoint: Message | None = None
        self.rows: tuple[Message | None, list[Message]] | None = None  # the transcript so far
        self._fixed: tuple[list | None, int] = (None, 0)
        self.notes: dict[int, str] = {}  # user message id → its attachment line (read once per run)
        self._events = threading.Lock()
        self.event_cursor: int | None = None  # mutation events above it may be this run's (links)
        self.principal: Principal | None = None  # who the run acts as (set when the loop starts)

    # --- outcome ----------------------------------------------------------------------------
    def execute(self) -> None:
        run = self.run
        try:
            if self.model is None:
                self._fail("no_model_configured", _("No model is configured for this run."), "configuration")
                return
            principal = acting.principal_of(run)
            with neutralize.tracking(self.demands):
                self.gate = Gate.for_run(run)
                if run.moa_preset is not None:
                    self.mixture = Mixture(run, run.moa_preset, self.gate)
                self._loop(principal)
        except Stop as stop:
            self._stopped(stop)
        except LoopDetected as exc:
            self._fail(
                guards.TOOL_LOOP_DETECTED,
                _("The copilot repeated the same tool call %(n)s times and was stopped.")
                % {"n": exc.details["repeats"]},
                "tool_loop",
                extra={"loop": exc.details},
            )
        except ProviderError as exc:
            self._fail(exc.code, exc.message, "provider_error")
        except PrincipalError:
            self._fail("forbidden", _("The identity this run acts as is disabled."), "principal_inactive")
        except Exception:
            logger.exception("agent run %s failed", run.pk)
            self._fail(
                "CLAPILOT_AGENT_INTERNAL_ERROR",
                _("The copilot failed unexpectedly. Please try again."),
                "internal",
            )

    def lease_lost(self, status: str | None) -> None:
        """Called by the lease thread when the run is no longer this worker's: finished elsewhere
        (the lost-run sweep) or its lease taken from it. The loop stops at its next check without
        asking the model again. A pause (waiting) or an unreadable row needs nothing."""
        if status is not None and status != Run.Status.WAITING:
            self.signal.trip(guards.LEASE_LOST)

    def _stopped(self, stop: Stop) -> None:
        if stop.reason == guards.LEASE_LOST:
            logger.warning("run %s was finished elsewhere while it ran; stopped", self.run.pk)
            return
        if stop.reason == guards.CANCELLED:
            self._checkpoint(Run.Status.CANCELLED, "cancelled", _("you stopped the run."))
            services.finish_run(self.run, Run.Status.CANCELLED)
            return
        self._fail(
            guards.PHASE_BUDGET_EXCEEDED,
            _("The tools took longer than the %(s)s seconds allowed in a chat.")
            % {"s": int(self.budget or 0)},
            "phase_budget",
            extra=stop.details,
        )

    def _fail(self, code: str, message: str, cause: str, extra: dict | None = None) -> None:
        diagnostics = {
            "abort_cause": cause,
            "provider": self.model.provider.name if self.model else "",
            "model": self.model.model_id if self.model else "",
            "last_event": self.state.last_event,
            "last_tool": self.state.last_tool,
            "rounds": self.run.rounds,
            **({"moa": self.run.model_label} if self.run.moa_preset_id else {}),
            **(extra or {}),
        }
        self._checkpoint(Run.Status.FAILED, code, message)
        services.finish_run(
            self.run, Run.Status.FAILED, error_code=code, error_message=message, diagnostics=diagnostics
        )

    def _checkpoint(self, status: str, code: str, reason: str) -> None:
        message = recovery.write(
            self.run,
            status=status,
            code=code,
            reason=reason,
            partial_text=self.state.partial,
            tools=self.state.completed,
        )
        if message is not None:
            self._final(message)

    # --- the loop ---------------------------------------------------------------------------
    def _loop(self, principal: Principal) -> None:
        run = self.run
        tz = prompting.resolve_time_zone(run, principal.time_zone)
        ctx = acting.tool_context(run, principal, time_zone=tz.key, cancel_check=self.signal.check)
        self.principal = principal
        system = {"role": "system", "content": prompting.system_prompt(tz, principal.language)}
        self.checkpoint = recovery.pending(run.session)
        while True:
            if self.signal.check():
                raise Stop(self.signal.reason)
            if run.rounds >= run.max_rounds:
                self._close(
                    Run.Status.MAX_ROUNDS_REACHED, _("I stopped after %(n)s rounds, the limit of this run.")
                )
                return
            if run.budget is not None and run.cost >= run.budget:
                self._close(
                    Run.Status.BUDGET_EXCEEDED, _("I stopped because this run's cost budget is used up.")
                )
                return
            functions = self.toolbox.functions(ctx) if self.model.supports_tools else []
            fixed = [system]
            if self.checkpoint is not None:
                fixed.append({"role": "system", "content": recovery.context_block(self.checkpoint)})
            if self.rows is None:  # read once; the run appends what it writes (the only writer)
                self.rows = prompting.transcript_rows(run.session, run)
            if self._fixed[0] is not functions:  # the schemas change only when the toolbox grows
                self._fixed = (functions, summarize.estimate_tokens(fixed, functions))
            fixed_tokens = self._fixed[1]
            self._escalate()  # the last tool results may have read a source that demands it
            if summarize.maybe_summarize(run, self.model, fixed_tokens, self.gate, self.rows) is not None:
                self.rows = prompting.transcript_rows(run.session, run)
            messages = [*fixed, *prompting.render(*self.rows, self._notes(principal))]
            extra = self._gather_context(messages)
            self._escalate()
            run.rounds += 1
            self._event(RunEvent.Kind.TURN, {"round": run.rounds})
            completion = self._call_model([*messages, *extra], functions)
            if not completion.tool_calls:
                services.save_usage(run, completion.prompt_tokens, completion.completion_tokens)
                message = services.add_message(run, Message.Role.ASSISTANT, completion.content)
                self.state.partial = ""
                if self.checkpoint is not None:
                    recovery.consume(self.checkpoint, run)
                self._final(message)
                services.finish_run(run, Run.Status.COMPLETED)
                titles.after_answer(run)
                _after_answer(run)
                return
            if self._run_tools(completion, ctx):
                return  # paused for a person's approval: a decision requeues the run

    def _call_model(self, messages: list[dict], functions: list[dict]) -> llm.Completion:
        buffer: list[str] = []
        last_flush = [0.0]
        self.state.partial = ""

        def flush() -> None:
            if buffer:
                self._event(RunEvent.Kind.TOKEN, {"text": "".join(buffer)}, remember=False)
                buffer.clear()
                last_flush[0] = time.monotonic()

        def on_token(text: str) -> None:
            self.state.partial += text
            buffer.append(text)
            if (
                time.monotonic() - last_flush[0] >= TOKEN_FLUSH_SECONDS
                or sum(map(len, buffer)) >= TOKEN_FLUSH_CHARS
            ):
                flush()

        kwargs = {"on_token": on_token, "should_stop": self.signal.check}
        try:
            if self.mixture is not None:
                return self.mixture.complete(messages, functions, **kwargs)
            return llm.chat(self.model, messages, functions, stream=True, gate=self.gate, **kwargs)
        except llm.Aborted:
            raise Stop(self.signal.reason or guards.CANCELLED) from None
        finally:
            flush()
            self._escalate()  # the gate may have switched itself on (a marked client's name)

    def _escalate(self) -> None:
        """Turn the run's gate on when a source read so far demands it, and record that."""
        gate = self.gate
        if gate is None:
            return
        gate.escalate()
        if gate.demanded_by:
            services.require_neutralization(self.run, gate.demanded_by)

    def _run_tools(self, completion: llm.Completion, ctx: ToolContext) -> bool:
        """Run one batch; True when the run paused for a person's approval."""
        run = self.run
        if (run.diagnostics or {}).get(services.FOREIGN_CONTENT):
            ctx.foreign.seen = True  # read before a pause: the approval step stays tightened
        calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in completion.tool_calls]
        looping = self.loop_guard.offending(calls)
        with transaction.atomic():  # one commit: usage, the call message and the start events
            services.save_usage(run, completion.prompt_tokens, completion.completion_tokens)
            self._keep(
                services.add_message(run, Message.Role.ASSISTANT, completion.content, tool_calls=calls)
            )
            self.state.partial = ""
            if looping is not None:
                refused = ToolResult.failure(
                    guards.TOOL_LOOP_DETECTED, _("Repeated identical call; not executed.")
                )
                self._record(calls, [refused] * len(calls))
            else:
                started = [
                    {"call_id": c["id"], "name": c["name"], "label": tool_label(c["name"])} for c in calls
                ]
                self._events_batch([(RunEvent.Kind.TOOL_STARTED, p) for p in started])
        if looping is not None:
            raise LoopDetected(looping)
        batch = [
            ToolCall(name=c["name"], arguments=llm.parse_arguments(c["arguments"]), call_id=c["id"])
            for c in calls
        ]
        if self.event_cursor is None and not all(_reads_only(c["name"]) for c in calls):
            self.event_cursor = links.event_cursor()

        def progress(elapsed: float) -> None:
            payloads = [{"call_id": c["id"], "name": c["name"], "elapsed": round(elapsed, 1)} for c in calls]
            self._events_batch([(RunEvent.Kind.TOOL_PROGRESS, p) for p in payloads], remember=False)

        outcome = guards.run_phase(
            lambda: neutralize.tracked(self.demands, execute_batch, batch, ctx),
            self.signal,
            budget=self.budget,
            on_progress=progress,
        )
        results = outcome.results
        if results is None:
            aborted = ToolResult.failure("aborted", _("The run was stopped while this tool was running."))
            results = [aborted] * len(calls)
        self._record(calls, results, batch)
        if ctx.foreign.seen:
            services.mark_foreign_content(run)
        if self.signal.tripped:
            details = {"elapsed": round(outcome.elapsed, 1), "still_running": outcome.still_running}
            raise Stop(self.signal.reason, {"phase": details})
        return self._pause_for_approval(calls, results)

    def _pause_for_approval(self, calls: list[dict], results: list[ToolResult]) -> bool:
        """Staged calls (`approval_required`) pause an interactive run without a final answer:
        it gives up its worker and lease, and a person's decision resumes it from the transcript."""
        staged = [
            (c, r.output if isinstance(r.output, dict) else {})
            for c, r in zip(calls, results, strict=True)
            if r.code == "approval_required"
        ]
        if not staged or not self.run.interactive:
            return False
        payloads = [
            {
                "staged_id": out.get("staged_id"),
                "preview": out.get("preview", ""),
                "tool": out.get("tool") or c["name"],
                "operation": out.get("operation", ""),
                "reason": out.get("reason", ""),
                "call_id": c["id"],
            }
            for c, out in staged
        ]
        return services.pause_for_approval(self.run, payloads)

    def _record(
        self, calls: list[dict], results: list[ToolResult], batch: list[ToolCall] | None = None
    ) -> None:
        """The batch's results: tool messages and their events, one statement each."""
        rows, events = [], []
        found = [[] for _c in calls]
        if batch is not None and self.event_cursor is not None:
            user = self.principal.resource_scope.user_id if self.principal is not None else None
            found = links.batch_links(
                self.run.pk, user, [c["name"] for c in calls], results, self.event_cursor
            )
        for i, (c, result) in enumerate(zip(calls, results, strict=True)):
            data = json.dumps(result.as_dict(), ensure_ascii=False, default=str)
            meta = {"name": c["name"], "ok": result.ok, "code": result.code or ""}
            stored = {**meta, "links": found[i]} if found[i] else meta  # the page links them later
            rows.append(
                {"role": Message.Role.TOOL, "content": data, "tool_call_id": c["id"], "metadata": stored}
            )
            self.state.tool_calls += 1
            self.state.last_tool = {**meta, "call_id": c["id"]}
            if batch is not None:
                self.state.completed.append({**meta, "preview": data[: recovery.PREVIEW_CHARS]})
            if result.ok and batch is not None:
                self.toolbox.learn(c["name"], batch[i].arguments, result.output)
                if c["name"] == "agent_todo_update":
                    events.append((RunEvent.Kind.TODO, {"items": (result.output or {}).get("items", [])}))
            finished = {"call_id": c["id"], "name": c["name"], "ok": result.ok, "code": result.code or ""}
            finished.update(message=result.message, ui_actions=result.ui_actions)
            finished.update(label=tool_label(c["name"]), links=found[i])
            events.append((RunEvent.Kind.TOOL_FINISHED, finished))
        with transaction.atomic():  # one commit for the batch's results
            for message in services.add_messages(self.run, rows):
                self._keep(message)
            self._events_batch(events)

    # --- helpers ----------------------------------------------------------------------------
    def _notes(self, principal: Principal) -> dict[int, str]:
        """The attachment lines of the user messages in the transcript, looked up once per run."""
        for m in self.rows[1] if self.rows else []:
            if m.pk not in self.notes and (ids := prompting.attachment_ids(m)):
                self.notes[m.pk] = prompting.attachment_note(principal, ids)
        return self.notes

    def _attached_ids(self) -> tuple[int, ...]:
        return tuple(i for m in (self.rows[1] if self.rows else []) for i in prompting.attachment_ids(m))

    def _gather_context(self, messages: list[dict]) -> list[dict]:
        extra = []
        providers = context_providers()
        for provider in providers:
            try:
                text = provider(
                    RoundContext(
                        run=self.run,
                        round=self.run.rounds + 1,
                        messages=messages,
                        attached_document_ids=self._attached_ids(),
                        principal=self.principal,
                    )
                )
            except Exception:
                logger.warning("context provider %r failed; continuing without it", provider, exc_info=True)
                continue
            if text:
                extra.append({"role": "system", "content": str(text)})
        if providers and self.signal.poll_now():  # a provider may take a while
            raise Stop(self.signal.reason)
        return extra

    def _close(self, status: str, text: str) -> None:
        content = text % {"n": self.run.max_rounds} if "%(n)s" in text else text
        if self.state.tool_calls:
            content += " " + _("%(count)s tool calls were executed; ask me to continue.") % {
                "count": self.state.tool_calls
            }
        message = services.add_message(
            self.run, Message.Role.ASSISTANT, content, metadata={"closing": status}
        )
        self._final(message)
        services.finish_run(self.run, status)

    def _final(self, message: Message) -> None:
        html = markdown.render(recovery.shown_text(message))
        self._event(RunEvent.Kind.FINAL, {"message_id": message.pk, "content": message.content, "html": html})

    def _keep(self, message: Message) -> None:
        if self.rows is not None:
            self.rows[1].append(message)

    def _events_batch(self, items: list[tuple[str, dict]], *, remember: bool = True) -> None:
        if not items:
            return
        with self._events:
            services.record_events(self.run, items)
        if remember:
            kind, payload = items[-1]
            self.state.last_event = {"kind": kind, **{k: v for k, v in payload.items() if k != "content"}}

    def _event(self, kind: str, payload: dict, *, remember: bool = True) -> None:
        with self._events:
            services.record_event(self.run, kind, payload)
        if remember:
            self.state.last_event = {"kind": kind, **{k: v for k, v in payload.items() if k != "content"}}
