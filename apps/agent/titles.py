"""The chat's title: the first words of the question at once, then, after the chat's first answer,
one model call in the worker (its own job, through the one client and the run's neutralization
gate) names the conversation. A failed or empty answer keeps the fallback; a name the user gave
is never replaced. Setting `CLAPILOT_CHAT_TITLES` (default on) switches the model call off."""

from __future__ import annotations

import logging
import re

from django.conf import settings

from apps.agent import services
from apps.agent.models import ChatSession, Message, Run
from apps.core.queue import enqueue
from apps.llm import client as llm
from apps.llm.errors import ProviderError
from apps.llm.neutralize import Gate

logger = logging.getLogger(__name__)

INSTRUCTION = (
    "Write a title of at most six words for the conversation below, in the language of the "
    "question. Answer with the title only: no quotes, no trailing period, no explanation."
)
EXCERPT_CHARS = 2000
TITLE_CHARS = 80
_QUOTES = "\"'„“”«»‚‘’`*#"


def enabled() -> bool:
    return bool(getattr(settings, "CLAPILOT_CHAT_TITLES", True))


def after_answer(run: Run) -> None:
    """Called by the runtime when a chat run answered: queue the title job after the commit
    when the chat still has its fallback title."""
    if run.kind != Run.Kind.CHAT or not enabled():
        return
    if run.session.title_source != ChatSession.TitleSource.FALLBACK:
        return
    enqueue("apps.agent.jobs.title_job", run.pk)  # by name: the job module imports the runtime


def generate(run_id: int) -> str:
    """Name the chat of this run after its first answer; answers what happened (for the log)."""
    run = Run.objects.select_related("session", "model_config__provider").filter(pk=run_id).first()
    if run is None or run.model_config is None:
        return "skipped"
    session = run.session
    if session.title_source != ChatSession.TitleSource.FALLBACK:
        return "skipped"
    if session.runs.filter(status=Run.Status.COMPLETED, pk__lt=run.pk).exists():
        return "skipped"  # not the first answer: the chat was named (or kept its fallback) then
    texts = dict(
        run.messages.filter(role__in=[Message.Role.USER, Message.Role.ASSISTANT])
        .exclude(content="")
        .order_by("id")
        .values_list("role", "content")
    )  # the last assistant text of the run is its answer
    question, answer = texts.get(Message.Role.USER, ""), texts.get(Message.Role.ASSISTANT, "")
    if not question:
        return "skipped"
    conversation = f"Question:\n{question[:EXCERPT_CHARS]}\n\nAnswer:\n{answer[:EXCERPT_CHARS]}"
    try:
        completion = llm.chat(
            run.model_config,
            [{"role": "system", "content": INSTRUCTION}, {"role": "user", "content": conversation}],
            stream=False,
            gate=Gate.for_run(run),
        )
    except ProviderError as exc:
        logger.warning("chat title for run %s failed (%s); the fallback title stays", run.pk, exc.code)
        return "failed"
    services.save_usage(run, completion.prompt_tokens, completion.completion_tokens)
    title = clean(completion.content or "")
    if not title:
        return "empty"
    return "named" if services.set_generated_title(session.pk, title) else "skipped"


def clean(text: str) -> str:
    """The model's first line without quotes, markup or a final period, at most TITLE_CHARS."""
    line = next((part for part in text.strip().splitlines() if part.strip()), "")
    line = re.sub(r"^(title|titel|titolo)\s*:\s*", "", line.strip(), flags=re.IGNORECASE)
    line = " ".join(line.strip(_QUOTES + " ").split()).rstrip(".").strip(_QUOTES + " ")
    return services.shorten(line, TITLE_CHARS)
