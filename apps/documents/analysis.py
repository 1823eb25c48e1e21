"""Asking the configured chat model what a document means for the office: a summary, the work it
calls for (tasks) and at most one deadline (Frist).

The call goes through `apps.llm.client.chat`, the one place where model calls (and the
neutralization gate) happen. The answer must be one JSON object; it is validated with pydantic,
and anything else becomes `AnalysisFailed` with a stable reason — never a half-understood result.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from apps.accounts.principal import Principal
from apps.core.errors import DomainError
from apps.deadlines import services as deadlines
from apps.documents.models import Document
from apps.llm import client as llm
from apps.llm import neutralize
from apps.llm.errors import ProviderError
from apps.llm.models import ModelConfig

MAX_TEXT_CHARS = 30_000
MAX_TASKS = 10
FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.IGNORECASE)


class TaskSuggestion(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    title: str = Field(min_length=1, max_length=300)
    due_date: dt.date | None = None
    assignee_hint: str | None = Field(default=None, max_length=200)
    description: str = Field(default="", max_length=2000)


class DeadlineSuggestion(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    title: str = Field(min_length=1, max_length=300)
    due: dt.datetime | dt.date | None = None
    legal_basis: str | None = Field(default=None, max_length=300)
    criticality: Literal["low", "normal", "high", "critical"] = "normal"
    # The letter's own dates: the due date is then computed by apps.deadlines (see `due_date`).
    trigger_date: dt.date | None = None
    rule: str | None = Field(default=None, max_length=60)
    posted: bool = False

    @field_validator("due", mode="before")
    @classmethod
    def _due(cls, value: Any) -> Any:
        # A bare date is an all-day deadline, not midnight of that day.
        if isinstance(value, str) and len(value.strip()) == 10:
            return dt.date.fromisoformat(value.strip())
        return value

    @model_validator(mode="after")
    def _some_date(self) -> DeadlineSuggestion:
        if self.due is None and not (self.trigger_date and self.rule):
            raise ValueError("a deadline needs a due date, or a trigger date and a rule")
        return self

    @property
    def all_day(self) -> bool:
        return not isinstance(self.due, dt.datetime)


@dataclass(frozen=True)
class DueDate:
    due: dt.date | dt.datetime
    all_day: bool
    legal_basis: str
    explanation: str = ""
    trigger_date: dt.date | None = None
    rule_code: str = ""


def due_date(suggestion: DeadlineSuggestion) -> DueDate | None:
    """The Frist's end. When the letter names a trigger date and a catalog rule, the German rules
    compute it (apps.deadlines: §§ 187-193 BGB, posting fiction, holidays of the office's Land);
    otherwise, or when that rule cannot apply, the model's own date; None when there is neither."""
    if suggestion.trigger_date and suggestion.rule:
        try:
            rule = deadlines.rule_for(suggestion.rule)
            result, rule, _amount, _unit = deadlines.compute_deadline(
                trigger_date=suggestion.trigger_date,
                rule=rule.code,
                posted=suggestion.posted and rule.posting_fiction,
            )
        except DomainError:
            pass
        else:
            return DueDate(
                result.end, True, result.legal_basis, result.explanation, result.trigger, rule.code
            )
    if suggestion.due is None:
        return None
    return DueDate(suggestion.due, suggestion.all_day, suggestion.legal_basis or "")


class Analysis(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    summary: str = Field(min_length=1, max_length=4000)
    tasks: list[TaskSuggestion] = Field(default_factory=list)
    deadline: DeadlineSuggestion | None = None
    # Whom the document concerns, as the document names them (matched against the office's
    # clients by the workflow, which proposes the link; never applied without a person).
    client: str | None = Field(default=None, max_length=200)

    @field_validator("client", mode="before")
    @classmethod
    def _client_text(cls, value: Any) -> Any:
        return value if isinstance(value, str) else None

    @field_validator("tasks", mode="before")
    @classmethod
    def _at_most(cls, value: Any) -> Any:
        # A model that lists too many tasks is trimmed, not refused: the first ones matter most.
        if value is None:
            return []
        return value[:MAX_TASKS] if isinstance(value, list) else value


@dataclass
class Result:
    analysis: Analysis
    prompt_tokens: int
    completion_tokens: int


class AnalysisFailed(Exception):
    """`reason` is stable (`model_error`, `invalid_model_output`); `message` is for people."""

    def __init__(self, reason: str, message: str, *, prompt_tokens: int = 0, completion_tokens: int = 0):
        super().__init__(reason)
        self.reason = reason
        self.message = message
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens


SCHEMA_HINT = """{
  "summary": "string, at most 5 sentences, in the language of the document",
  "client": "the name or client number of the office's client (Mandant) the document concerns, or null",
  "tasks": [{"title": "string (imperative, short)", "due_date": "YYYY-MM-DD or null",
             "assignee_hint": "name of the person who should do it, or null",
             "description": "string, may be empty"}],
  "deadline": null or {"title": "string", "due": "YYYY-MM-DD or YYYY-MM-DDTHH:MM",
                       "legal_basis": "e.g. § 355 AO, or null",
                       "criticality": "low | normal | high | critical",
                       "trigger_date": "YYYY-MM-DD the period runs from (Bekanntgabe, Zustellung) or the letter's date, or null",
                       "rule": "code of the statutory period (list below), or null",
                       "posted": "true when trigger_date is the date of a posted letter (Bescheid vom …)"}
}"""


def _system_prompt(principal: Principal) -> str:
    today = timezone.now().astimezone(principal.time_zone).date().isoformat()
    return (
        "You read one document received or written by a tax or law office and report what it "
        "means for the office. Answer with exactly one JSON object and nothing else: no prose, "
        f"no Markdown, no code fences. The object has this shape:\n{SCHEMA_HINT}\n"
        f"Rules: at most {MAX_TASKS} tasks, only concrete actions the office has to take; no task "
        "when there is nothing to do. At most one deadline: the legal or tax deadline (Frist) the "
        "document sets or implies, e.g. an objection period after a tax assessment; null when "
        "there is none. Compute dates from the document's own dates. When the deadline is one "
        "of these statutory periods, also give its rule code and trigger_date (the office then "
        f"computes the due date): {_rule_codes()}. "
        f"Today is {today} (time zone {principal.time_zone.key})."
    )


def _rule_codes() -> str:
    return "; ".join(f"{code} = {label}" for code, label in deadlines.rule_choices()) or "none"


def _user_prompt(document: Document) -> str:
    clients = ", ".join(c.name for c in document.clients.all()) or "-"
    text = document.extracted_text[:MAX_TEXT_CHARS]
    cut = "\n[… text shortened …]" if len(document.extracted_text) > MAX_TEXT_CHARS else ""
    return f"Title: {document.title}\nClients: {clients}\n\n<document>\n{text}{cut}\n</document>"


def parse(content: str) -> Analysis:
    """The model's text as an `Analysis`; raises ValueError/ValidationError when unusable."""
    text = FENCE.sub("", content or "").strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object")
    data = json.loads(text[start : end + 1])
    if not isinstance(data, dict):
        raise ValueError("not an object")
    return Analysis.model_validate(data)


def analyse(model: ModelConfig, document: Document, principal: Principal) -> Result:
    # A document of a folder or client marked "neutralize always" is neutralized whatever the
    # instance setting says (the gate of `llm.chat` escalates on the scope's demand).
    with neutralize.tracking():
        neutralize.touch([f"document:{document.pk}"])
        messages = [
            {"role": "system", "content": _system_prompt(principal)},
            {"role": "user", "content": _user_prompt(document)},
        ]
        return _analyse(model, messages)


def _analyse(model: ModelConfig, messages: list[dict]) -> Result:
    try:
        completion = llm.chat(model, messages, stream=False)
    except ProviderError as exc:
        raise AnalysisFailed("model_error", exc.message) from None
    except llm.Aborted:
        raise AnalysisFailed("model_error", _("The model call was stopped.")) from None
    usage = {"prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens}
    try:
        analysis = parse(completion.content)
    except (ValueError, ValidationError) as exc:
        detail = (
            "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:3])
            if isinstance(exc, ValidationError)
            else str(exc)
        )
        raise AnalysisFailed(
            "invalid_model_output",
            _("The model's answer was not valid JSON of the expected shape (%(detail)s).")
            % {"detail": detail[:300]},
            **usage,
        ) from None
    return Result(analysis, **usage)
