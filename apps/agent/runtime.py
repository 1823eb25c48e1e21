"""The ReAct loop: call the model, run the tools it asks for, feed results back, until it
answers in text, a limit is hit, the run is cancelled or the provider fails.

`run_agent(run_id)` is called by the Celery job; every message and event is persisted through
`apps.agent.services`, so a reconnecting page replays what it missed.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.utils import translation
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal, PrincipalError
from apps.agent import llm, markdown, prompting, services
from apps.agent.errors import ProviderError
from apps.agent.models import Message, Run, RunEvent
from apps.tools.context import ToolContext
from apps.tools.dispatcher import ToolCall, execute_batch

logger = logging.getLogger(__name__)

TOKEN_FLUSH_SECONDS = 0.1
TOKEN_FLUSH_CHARS = 400


@dataclass
class RoundContext:
    """What a context provider (RAG hook) gets before each round."""

    run: Run
    round: int
    messages: list[dict]


# RAG hook: callables returning extra context text (or None). Failures are logged and skipped.
context_providers: list[Callable[[RoundContext], str | None]] = []


class Cancelled(Exception):
    pass


@dataclass
class _State:
    last_event: dict = field(default_factory=dict)
    last_tool: dict = field(default_factory=dict)
    tool_calls: int = 0


def run_agent(run_id: int) -> Run:
    run = Run.objects.select_related("session__user", "model_config__provider").get(pk=run_id)
    if run.is_final:
        return run
    if not services.start_run(run):
        if run.status == Run.Status.CANCELLING:
            return services.finish_run(run, Run.Status.CANCELLED)
        return run  # already running elsewhere (a redelivered job)
    loop = _Loop(run)
    with translation.override(run.session.user.language or None):
        loop.execute()
    return run


class _Loop:
    def __init__(self, run: Run) -> None:
        self.run = run
        self.state = _State()
        self.model = run.model_config

    # --- outcome ----------------------------------------------------------------------------
    def execute(self) -> None:
        run = self.run
        try:
            if self.model is None:
                self._fail("no_model_configured", _("No model is configured for this run."), "configuration")
                return
            principal = Principal.for_user(run.session.user)
            self._loop(principal)
        except Cancelled:
            services.finish_run(run, Run.Status.CANCELLED)
        except ProviderError as exc:
            self._fail(exc.code, exc.message, "provider_error")
        except PrincipalError:
            self._fail("forbidden", _("The user of this chat is disabled."), "principal_inactive")
        except Exception:
            logger.exception("agent run %s failed", run.pk)
            self._fail(
                "CLAPILOT_AGENT_INTERNAL_ERROR",
                _("The copilot failed unexpectedly. Please try again."),
                "internal",
            )

    def _fail(self, code: str, message: str, cause: str) -> None:
        provider = self.model.provider.name if self.model else ""
        diagnostics = {
            "abort_cause": cause,
            "provider": provider,
            "model": self.model.model_id if self.model else "",
            "last_event": self.state.last_event,
            "last_tool": self.state.last_tool,
            "rounds": self.run.rounds,
        }
        services.finish_run(
            self.run, Run.Status.FAILED, error_code=code, error_message=message, diagnostics=diagnostics
        )

    # --- the loop ---------------------------------------------------------------------------
    def _loop(self, principal: Principal) -> None:
        run = self.run
        tz = prompting.resolve_time_zone(run, principal.time_zone)
        ctx = ToolContext(
            principal=principal,
            surface="native",
            run_id=str(run.pk),
            session_id=str(run.session_id),
            time_zone=tz.key,
        )
        tools = [] if not self.model.supports_tools else prompting.starting_tools(ctx)
        functions = [t.openai_function() for t in tools]
        system = {"role": "system", "content": prompting.system_prompt(tz, principal.language)}
        while True:
            self._check_cancel()
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
            messages = [system, *prompting.transcript(run.session)]
            extra = self._gather_context(messages)
            run.rounds += 1
            self._event(RunEvent.Kind.TURN, {"round": run.rounds})
            completion = self._call_model([*messages, *extra], functions)
            services.save_usage(run, completion.prompt_tokens, completion.completion_tokens)
            if not completion.tool_calls:
                message = services.add_message(run, Message.Role.ASSISTANT, completion.content)
                self._final(message)
                services.finish_run(run, Run.Status.COMPLETED)
                return
            self._run_tools(completion, ctx)

    def _call_model(self, messages: list[dict], functions: list[dict]) -> llm.Completion:
        buffer: list[str] = []
        last_flush = [0.0]

        def flush() -> None:
            if buffer:
                self._event(RunEvent.Kind.TOKEN, {"text": "".join(buffer)}, remember=False)
                buffer.clear()
                last_flush[0] = time.monotonic()

        def on_token(text: str) -> None:
            buffer.append(text)
            if (
                time.monotonic() - last_flush[0] >= TOKEN_FLUSH_SECONDS
                or sum(map(len, buffer)) >= TOKEN_FLUSH_CHARS
            ):
                flush()

        completion = llm.chat(self.model, messages, functions, stream=True, on_token=on_token)
        flush()
        return completion

    def _run_tools(self, completion: llm.Completion, ctx: ToolContext) -> None:
        run = self.run
        calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in completion.tool_calls]
        services.add_message(run, Message.Role.ASSISTANT, completion.content, tool_calls=calls)
        for c in calls:
            self._event(RunEvent.Kind.TOOL_STARTED, {"call_id": c["id"], "name": c["name"]})
        batch = [ToolCall(name=c["name"], arguments=llm.parse_arguments(c["arguments"])) for c in calls]
        results = execute_batch(batch, ctx)
        for c, result in zip(calls, results, strict=True):
            data = result.as_dict()
            services.add_message(
                run,
                Message.Role.TOOL,
                json.dumps(data, ensure_ascii=False, default=str),
                tool_call_id=c["id"],
                metadata={"name": c["name"], "ok": result.ok, "code": result.code or ""},
            )
            self.state.tool_calls += 1
            self.state.last_tool = {"name": c["name"], "ok": result.ok, "code": result.code or ""}
            self._event(
                RunEvent.Kind.TOOL_FINISHED,
                {
                    "call_id": c["id"],
                    "name": c["name"],
                    "ok": result.ok,
                    "code": result.code or "",
                    "message": result.message,
                    "ui_actions": result.ui_actions,
                },
            )

    # --- helpers ----------------------------------------------------------------------------
    def _gather_context(self, messages: list[dict]) -> list[dict]:
        extra = []
        for provider in list(context_providers):
            try:
                text = provider(RoundContext(run=self.run, round=self.run.rounds + 1, messages=messages))
            except Exception:
                logger.warning("context provider %r failed; continuing without it", provider, exc_info=True)
                continue
            if text:
                extra.append({"role": "system", "content": str(text)})
        self._check_cancel()  # a provider may take a while; honour a stop that came meanwhile
        return extra

    def _check_cancel(self) -> None:
        if services.is_cancelling(self.run):
            raise Cancelled

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
        html = markdown.render(message.content)
        self._event(RunEvent.Kind.FINAL, {"message_id": message.pk, "content": message.content, "html": html})

    def _event(self, kind: str, payload: dict, *, remember: bool = True) -> None:
        services.record_event(self.run, kind, payload)
        if remember:
            self.state.last_event = {"kind": kind, **{k: v for k, v in payload.items() if k != "content"}}
