"""The neutralization gate: personal data never reaches a model provider.

`client.chat` passes every outgoing request through a `Gate` and every answer back through it:
the personal data the office's own records hold (names of clients, their contact people and
staff, their e-mail addresses …), and whatever looks like an e-mail address, phone number, IBAN
or German tax id, become placeholders such as `[MANDANT_1]` or `[EMAIL_2]`, stable for the
lifetime of the gate (one run). The model's streamed and final text and its tool-call arguments
are restored before anyone sees them, so users and tools only ever handle real values. Tools
never neutralize.

Which records hold personal data is each app's own knowledge: it declares a provider on its
`DomainApp` (`extends = {"llm.personal_terms": ["apps.<app>.personal_terms.<fn>"]}`), a callable
without arguments that yields `(kind, literal)` pairs, read fresh for every gate. `kind` is one of
`KINDS`; a kind ending in `~` (`"PERSON~"`, `"MANDANT~"`) is a lone surname, matched
case-sensitively (so "Klein" but not "klein"). A provider that fails stops the model call: the
gate never sends a request it could not neutralize.

Instance setting `agent_neutralization`: "on" (default) or "off"; a run with
`require_neutralization` (a data source demands it) is neutralized whatever the setting says.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable
from typing import Any

from apps.core import plugins
from apps.core.services import get_setting

SETTING = "agent_neutralization"
PERSONAL_TERMS = "llm.personal_terms"  # the extension point each app with personal data fills
MIN_NAME_LENGTH = 3
MEMO_SIZE = 10_000
# A placeholder that may still be growing at the end of a streamed chunk: hold it back.
_PARTIAL = re.compile(r"\[[A-Z_]{0,14}\d{0,5}$")
_PLACEHOLDER = re.compile(r"\[([A-Z][A-Z_]*?)_(\d+)\]")

EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}(?![\w-])")
IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])")
# Steuernummer: state formats (12/345/67890, 123/456/78901) and the 13-digit federal form.
STEUERNUMMER = re.compile(r"(?<![\d/])(?:\d{2,3}/\d{3,4}/\d{4,5}|\d{13})(?![\d/])")
# Steuer-ID: 11 digits, first not 0, optionally grouped 2-3-3-3.
STEUER_ID = re.compile(r"(?<!\d)(?<!\d[.,])(?:[1-9]\d{10}|[1-9]\d \d{3} \d{3} \d{3})(?!\d|[.,]\d)")
PHONE = re.compile(
    r"(?<![\w/])(?<!\d[.,])(?:\+\d{1,3}[ ]?(?:\(0\)[ ]?)?|0)\d{1,5}(?:[ /-]?\d{2,}){1,5}(?![\w/]|[.,]\d)"
)
MIN_PHONE_DIGITS = 7

KINDS = ("MANDANT", "PERSON", "EMAIL", "TELEFON", "IBAN", "STEUER_ID", "STEUERNUMMER")


def enabled_for(run: Any | None) -> bool:
    if run is not None and getattr(run, "require_neutralization", False):
        return True
    value = get_setting(SETTING, "on")
    if isinstance(value, dict):  # {"mode": "off"} as edited in the admin
        value = value.get("mode", "on")
    return str(value).strip().lower() not in ("off", "false", "0", "no")


def office_names() -> list[tuple[str, str]]:
    """(kind, literal) pairs from every app's `llm.personal_terms` provider, read fresh for every
    gate, ordered by `KINDS` (a literal two providers name differently keeps the earlier kind:
    a client who also works in the office stays a MANDANT)."""
    found: list[tuple[str, str]] = []
    for provider in plugins.contributions(PERSONAL_TERMS):
        found.extend((str(kind), str(value).strip()) for kind, value in provider() if value)
    found = [(k, v) for k, v in found if len(v) >= MIN_NAME_LENGTH]
    rank = {kind: i for i, kind in enumerate(KINDS)}
    return sorted(found, key=lambda pair: rank.get(pair[0].rstrip("~"), len(KINDS)))


class Gate:
    """Placeholders for one run. Thread-safe: MoA reference calls share one gate."""

    def __init__(self, literals: Iterable[tuple[str, str]] = (), *, active: bool = True) -> None:
        self.active = active
        self._lock = threading.Lock()
        self._by_value: dict[str, str] = {}  # normalized value → placeholder
        self._by_placeholder: dict[str, str] = {}  # placeholder → original value
        self._counters: dict[str, int] = {}
        self._memo: dict[str, str] = {}
        self._literal_kind, self._exact_kind, self._names, self._surnames = _compiled(tuple(literals))

    @classmethod
    def for_run(cls, run: Any | None = None) -> Gate:
        if not enabled_for(run):
            return cls(active=False)
        return cls(office_names())

    @property
    def replacements(self) -> dict[str, str]:
        return dict(self._by_placeholder)

    # --- outgoing ---------------------------------------------------------------------------
    def _placeholder(self, kind: str, value: str) -> str:
        key = f"{kind}:{_normal(kind, value)}"
        with self._lock:
            found = self._by_value.get(key)
            if found is None:
                self._counters[kind] = self._counters.get(kind, 0) + 1
                found = f"[{kind}_{self._counters[kind]}]"
                self._by_value[key] = found
                self._by_placeholder[found] = value
            return found

    def text(self, text: str) -> str:
        """Placeholders are stable per gate, so a text seen before (the transcript is re-sent
        every round) is answered from a memo."""
        if not self.active or not text:
            return text
        done = self._memo.get(text)
        if done is None:
            done = self._neutralize(text)
            if len(self._memo) < MEMO_SIZE:
                self._memo[text] = done
        return done

    def _neutralize(self, text: str) -> str:
        if self._names is not None:
            text = self._names.sub(
                lambda m: self._placeholder(self._literal_kind[m.group(0).casefold()], m.group(0)), text
            )
        if self._surnames is not None:
            text = self._surnames.sub(
                lambda m: self._placeholder(self._exact_kind[m.group(0)], m.group(0)), text
            )
        text = EMAIL.sub(lambda m: self._placeholder("EMAIL", m.group(0)), text)
        text = IBAN.sub(lambda m: self._iban(m), text)
        text = STEUERNUMMER.sub(lambda m: self._placeholder("STEUERNUMMER", m.group(0)), text)
        text = STEUER_ID.sub(lambda m: self._placeholder("STEUER_ID", m.group(0)), text)
        return PHONE.sub(self._phone, text)

    def _iban(self, m: re.Match) -> str:
        raw = m.group(0)
        return self._placeholder("IBAN", raw) if len(raw.replace(" ", "")) >= 15 else raw

    def _phone(self, m: re.Match) -> str:
        raw = m.group(0)
        digits = sum(c.isdigit() for c in raw)
        return self._placeholder("TELEFON", raw) if digits >= MIN_PHONE_DIGITS else raw

    def messages(self, messages: list[dict]) -> list[dict]:
        """A neutralized copy of chat-completions messages (text, multi-part text, tool calls)."""
        if not self.active:
            return messages
        out = []
        for m in messages:
            m = dict(m)
            content = m.get("content")
            if isinstance(content, str):
                m["content"] = self.text(content)
            elif isinstance(content, list):
                m["content"] = [
                    {**part, "text": self.text(part["text"])}
                    if isinstance(part, dict) and isinstance(part.get("text"), str)
                    else part
                    for part in content
                ]
            if m.get("tool_calls"):
                m["tool_calls"] = [
                    {
                        **c,
                        "function": {
                            **c["function"],
                            "arguments": self.arguments(c["function"].get("arguments", "")),
                        },
                    }
                    for c in m["tool_calls"]
                ]
            out.append(m)
        return out

    def arguments(self, raw: str) -> str:
        return self._map_json(raw, self.text)

    # --- incoming ---------------------------------------------------------------------------
    def restore(self, text: str) -> str:
        if not self.active or not text or "[" not in text:
            return text
        return _PLACEHOLDER.sub(lambda m: self._by_placeholder.get(m.group(0), m.group(0)), text)

    def restore_arguments(self, raw: str) -> str:
        """Tool-call arguments with real values, JSON-escaped where the arguments are JSON."""
        return self._map_json(raw, self.restore)

    def _map_json(self, raw: str, fn: Callable[[str], str]) -> str:
        if not self.active or not raw:
            return raw
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            return fn(raw)
        return json.dumps(_walk(data, fn), ensure_ascii=False)

    def stream(self, sink: Callable[[str], None] | None) -> StreamRestorer:
        return StreamRestorer(self, sink)


class StreamRestorer:
    """Restores placeholders in streamed deltas; a placeholder cut between two chunks is held
    back until it is complete (or the stream ends)."""

    def __init__(self, gate: Gate, sink: Callable[[str], None] | None) -> None:
        self.gate, self.sink, self._pending = gate, sink, ""

    def __call__(self, delta: str) -> None:
        if self.sink is None:
            return
        if not self.gate.active:
            self.sink(delta)
            return
        text = self._pending + delta
        held = _PARTIAL.search(text)
        self._pending = text[held.start() :] if held else ""
        ready = text[: held.start()] if held else text
        if ready:
            self.sink(self.gate.restore(ready))

    def close(self) -> None:
        if self._pending and self.sink is not None:
            self.sink(self.gate.restore(self._pending))
        self._pending = ""


_COMPILED: dict[int, tuple] = {}
_COMPILED_LOCK = threading.Lock()
COMPILED_KEEP = 4


def _compiled(literals: tuple[tuple[str, str], ...]) -> tuple:
    """Kind maps and name patterns for a set of literals. Compiling thousands of names costs
    tens of milliseconds, so the last few sets are kept per process (records rarely change)."""
    key = hash(literals)
    with _COMPILED_LOCK:
        cached = _COMPILED.get(key)
    if cached is not None and cached[0] == literals:
        return cached[1]
    full: dict[str, str] = {}  # casefolded full name → kind
    exact: dict[str, str] = {}  # surname as written → kind
    for kind, value in literals:
        if kind.endswith("~"):
            exact.setdefault(value, kind[:-1])
        else:
            full.setdefault(value.casefold(), kind)
    found = (full, exact, _alternation(full, re.IGNORECASE), _alternation(exact, 0))
    with _COMPILED_LOCK:
        if len(_COMPILED) >= COMPILED_KEEP:
            _COMPILED.pop(next(iter(_COMPILED)))
        _COMPILED[key] = (literals, found)
    return found


def _alternation(literals: dict[str, str], flags: int) -> re.Pattern | None:
    if not literals:
        return None
    names = sorted(literals, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in names) + r")(?!\w)", flags)


def _walk(data: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(data, str):
        return fn(data)
    if isinstance(data, list):
        return [_walk(v, fn) for v in data]
    if isinstance(data, dict):
        return {k: _walk(v, fn) for k, v in data.items()}
    return data


def _normal(kind: str, value: str) -> str:
    if kind in ("TELEFON", "IBAN", "STEUER_ID", "STEUERNUMMER"):
        return re.sub(r"[\s/()+-]", "", value)
    return value.casefold()
