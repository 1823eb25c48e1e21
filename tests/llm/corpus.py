"""The German test set of the neutralization rule pass (`tests/llm/data/neutralize_de.txt`) and its
scoring, shared by `tests/llm/test_rule_pass.py` and `bench/neutralize.py`.

Scoring, per category and overall:
- recall (by the annotated kind): an annotated span counts as found when every one of its
  non-blank characters is replaced (by a span of any kind: masked is masked);
- precision (by the kind the gate gave): a replaced span counts as right when at least half of its
  non-blank characters lie inside annotated spans.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).parent / "data" / "neutralize_de.txt"
HOLDOUT = Path(__file__).parent / "data" / "neutralize_de_holdout.txt"
_MARK = re.compile(r"\[\[([A-Z_]+):(.+?)\]\]")


@dataclass
class Snippet:
    ident: str
    text: str
    gold: list[tuple[int, int, str]]


@dataclass
class Score:
    found: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    gold: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    right: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    predicted: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    misses: list[tuple[str, str, str]] = field(default_factory=list)  # (snippet, kind, text)
    false: list[tuple[str, str, str]] = field(default_factory=list)

    def recall(self, kind: str | None = None) -> float:
        gold = self.gold[kind] if kind else sum(self.gold.values())
        found = self.found[kind] if kind else sum(self.found.values())
        return found / gold if gold else 1.0

    def precision(self, kind: str | None = None) -> float:
        predicted = self.predicted[kind] if kind else sum(self.predicted.values())
        right = self.right[kind] if kind else sum(self.right.values())
        return right / predicted if predicted else 1.0


def load(path: Path = DATA) -> list[Snippet]:
    snippets: list[Snippet] = []
    ident, lines = None, []

    def close() -> None:
        if ident is None:
            return
        raw = "\n".join(lines).strip("\n")
        text, gold, pos = [], [], 0
        length = 0
        for m in _MARK.finditer(raw):
            text.append(raw[pos : m.start()])
            length += m.start() - pos
            gold.append((length, length + len(m.group(2)), m.group(1)))
            text.append(m.group(2))
            length += len(m.group(2))
            pos = m.end()
        text.append(raw[pos:])
        snippets.append(Snippet(ident, "".join(text), gold))

    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        if line.startswith("=== "):
            close()
            ident, lines = line[4:].split(":")[0].strip(), []
        else:
            lines.append(line)
    close()
    return snippets


def _chars(text: str, start: int, end: int) -> set[int]:
    return {i for i in range(start, end) if not text[i].isspace()}


def score(snippets: list[Snippet], spans_of) -> Score:
    """`spans_of(text)` → [(start, end, kind)] as the gate replaces them."""
    result = Score()
    for snippet in snippets:
        text = snippet.text
        predicted = spans_of(text)
        masked: set[int] = set()
        for start, end, _kind in predicted:
            masked |= _chars(text, start, end)
        gold_chars: set[int] = set()
        for start, end, kind in snippet.gold:
            chars = _chars(text, start, end)
            gold_chars |= chars
            result.gold[kind] += 1
            if chars <= masked:
                result.found[kind] += 1
            else:
                result.misses.append((snippet.ident, kind, text[start:end]))
        for start, end, kind in predicted:
            chars = _chars(text, start, end)
            result.predicted[kind] += 1
            if chars and len(chars & gold_chars) * 2 >= len(chars):
                result.right[kind] += 1
            else:
                result.false.append((snippet.ident, kind, text[start:end]))
    return result
