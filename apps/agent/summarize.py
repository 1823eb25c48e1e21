"""Progressive summarization: when the conversation nears the model's context window, the older
messages are summarized with the summarization model (instance setting `summarization_model`,
else the chat model) and replaced by one stored summary message (role `system`, metadata
`summary` and `covers_through`), so the summary is computed once, not every round."""

from __future__ import annotations

import json
import logging

from django.conf import settings

from apps.agent import prompting, services
from apps.agent.models import Message, Run
from apps.core.services import get_setting
from apps.llm import client as llm
from apps.llm.errors import ProviderError
from apps.llm.models import ModelConfig
from apps.llm.neutralize import Gate

logger = logging.getLogger(__name__)

SETTING = "summarization_model"
CHARS_PER_TOKEN = 4
ROW_CHARS = 4000

INSTRUCTION = (
    "Summarize the conversation below for your own later use as an assistant of a tax and law "
    "office. Keep every fact, decision, open question, record id, date and amount; note which tool "
    "calls were made and their results. Write compact notes in the conversation's language."
)


def estimate_tokens(messages: list[dict], functions: list[dict] | None = None) -> int:
    """chars / 4 of what is sent: contents, tool-call arguments, tool schemas (cheap, no JSON)."""
    chars = 0
    for m in messages:
        content = m.get("content")
        chars += len(content) if isinstance(content, str) else len(str(content or ""))
        for c in m.get("tool_calls") or []:
            chars += len(c["function"]["name"]) + len(c["function"].get("arguments") or "") + 40
        chars += 16  # role and framing
    if functions:
        chars += sum(len(json.dumps(f, ensure_ascii=False)) for f in functions)
    return chars // CHARS_PER_TOKEN


def summarization_model(fallback: ModelConfig) -> ModelConfig:
    wanted = get_setting(SETTING)
    if isinstance(wanted, int | str) and str(wanted).isdigit():
        found = services.offered_models().filter(pk=int(wanted)).first()
        if found is not None:
            return found
    return fallback


def maybe_summarize(
    run: Run, model: ModelConfig, fixed_tokens: int, gate: Gate, current: tuple | None = None
) -> Message | None:
    """Summarize when transcript + `fixed_tokens` (system prompt, tools) pass the threshold.
    `current`: the session's `prompting.transcript_rows`, when the caller already read them."""
    window = model.context_window
    threshold = float(getattr(settings, "CLAPILOT_AGENT_SUMMARY_THRESHOLD", 0.8))
    keep = float(getattr(settings, "CLAPILOT_AGENT_SUMMARY_KEEP", 0.4))
    summary, rows = current if current is not None else prompting.transcript_rows(run.session)
    entries = prompting.render(summary, rows)
    if fixed_tokens + estimate_tokens(entries) < window * threshold:
        return None
    cut = _cut(rows, max(window * keep - fixed_tokens, 0))
    if cut <= 0:
        return None
    old, summary_model = rows[:cut], summarization_model(model)
    text = _render_text(summary, old)
    try:
        completion = llm.chat(
            summary_model,
            [{"role": "system", "content": INSTRUCTION}, {"role": "user", "content": text}],
            stream=False,
            gate=gate,
        )
    except ProviderError as exc:
        logger.warning("summarization failed (%s); continuing with the full transcript", exc.code)
        return None
    services.save_usage(run, completion.prompt_tokens, completion.completion_tokens, model=summary_model)
    if not completion.content.strip():
        return None
    message = services.add_message(
        run,
        Message.Role.SYSTEM,
        completion.content.strip(),
        metadata={"summary": True, "covers_through": old[-1].pk, "model": summary_model.label},
    )
    services.record_event(run, "summary", {"covers_through": old[-1].pk, "messages": len(old)})
    return message


def _cut(rows: list[Message], budget_tokens: float) -> int:
    """The earliest row index (not a tool result, never 0) whose tail fits the budget; else the
    last possible one."""
    candidates = [i for i in range(1, len(rows)) if rows[i].role != Message.Role.TOOL]
    for i in candidates:
        if estimate_tokens(prompting.render(None, rows[i:])) <= budget_tokens:
            return i
    return candidates[-1] if candidates else 0


def _render_text(summary: Message | None, rows: list[Message]) -> str:
    parts = []
    if summary is not None:
        parts.append(f"Earlier summary:\n{summary.content}")
    for m in rows:
        if m.role == Message.Role.TOOL:
            parts.append(f"[tool result {m.metadata.get('name', '')}]: {m.content[:ROW_CHARS]}")
            continue
        if m.content:
            parts.append(f"[{m.role}]: {m.content[:ROW_CHARS]}")
        for c in m.tool_calls or []:
            parts.append(f"[assistant called {c.get('name')}]: {str(c.get('arguments', ''))[:ROW_CHARS]}")
    return "\n\n".join(parts)
