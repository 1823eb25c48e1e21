"""Mixture of Agents: the preset's reference models answer the turn in parallel (threads, no
tools); the aggregator gets their answers and writes the final, streamed answer (with tools when
it supports them). Reference answers are gathered once per run and kept for later rounds."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from apps.agent import services
from apps.agent.models import MoAPreset, Run
from apps.llm import client as llm
from apps.llm.errors import ProviderError
from apps.llm.models import ModelConfig
from apps.llm.neutralize import Gate

logger = logging.getLogger(__name__)

PREFIX = "moa/"
MAX_PARALLEL = 8
DEFAULT_PROMPT = (
    "You have been given answers from several models to the latest user request. Critically "
    "evaluate them, keep what is correct, and write one better answer (use tools where needed). "
    "Do not mention that several models were asked."
)


def presets():
    return MoAPreset.objects.filter(enabled=True, aggregator__provider__enabled=True).select_related(
        "aggregator__provider"
    )


def find(virtual_id: str) -> MoAPreset | None:
    if not virtual_id.startswith(PREFIX):
        return None
    return presets().filter(slug=virtual_id[len(PREFIX) :]).first()


UsageSink = Callable[[ModelConfig, llm.Completion], None]


class Mixture:
    """One preset answering: for a run (usage goes to the run), or for the stateless inference
    passthrough (`run=None`, its own `on_usage`: every model call is reported there)."""

    def __init__(
        self, run: Run | None, preset: MoAPreset, gate: Gate, on_usage: UsageSink | None = None
    ) -> None:
        self.run, self.preset, self.gate = run, preset, gate
        self.on_usage: UsageSink = on_usage or self._save_usage
        self.references: list[ModelConfig] = list(preset.reference_models.select_related("provider"))
        self.answers: list[tuple[str, str]] | None = None

    def _save_usage(self, model: ModelConfig, completion: llm.Completion) -> None:
        services.save_usage(self.run, completion.prompt_tokens, completion.completion_tokens, model=model)

    def complete(
        self,
        messages: list[dict],
        functions: list[dict],
        *,
        on_token: Callable[[str], None] | None,
        should_stop: Callable[[], bool] | None,
        tool_choice: object = None,
    ) -> llm.Completion:
        if self.answers is None:
            self.answers = self._fan_out(messages)
        block = "\n\n".join(f"[{i}] {label}:\n{text}" for i, (label, text) in enumerate(self.answers, 1))
        instruction = {"role": "system", "content": f"{self.preset.prompt or DEFAULT_PROMPT}\n\n{block}"}
        aggregator = self.preset.aggregator
        completion = llm.chat(
            aggregator,
            [*messages, instruction],
            functions if aggregator.supports_tools else [],
            stream=True,
            on_token=on_token,
            gate=self.gate,
            should_stop=should_stop,
            tool_choice=tool_choice,
        )
        self.on_usage(aggregator, completion)
        completion.prompt_tokens = completion.completion_tokens = 0  # already counted
        return completion

    def _fan_out(self, messages: list[dict]) -> list[tuple[str, str]]:
        def ask(model: ModelConfig) -> llm.Completion:
            return llm.chat(model, messages, None, stream=False, gate=self.gate)

        with ThreadPoolExecutor(max_workers=min(len(self.references), MAX_PARALLEL) or 1) as pool:
            futures = [(m, pool.submit(ask, m)) for m in self.references]
            answers, errors = [], []
            for model, future in futures:
                try:
                    completion = future.result()
                except ProviderError as exc:
                    logger.warning("MoA reference %s failed: %s", model.label, exc.code)
                    errors.append(exc)
                    continue
                self.on_usage(model, completion)
                answers.append((model.label, completion.content))
        if not answers and errors:
            raise errors[0]
        return answers
