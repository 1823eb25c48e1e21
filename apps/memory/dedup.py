"""When is a new memory the same as one we have, and when does it contradict one?

Conservative and explainable, so a reviewer can check each verdict:

* **duplicate**: the same canonical text about the same subject (`canonical_key`), or a vector so
  close (`NEAR_IDENTICAL`) that only wording differs — and the two say the same numbers, dates
  and polarity. The existing memory is confirmed instead of storing a second one.
* **conflict**: an approved memory about the same subject, of a kind that states something (fact,
  preference), very similar (`CONFLICT_SIMILARITY`) and worded nearly alike (`SAME_WORDING` of
  its words besides numbers, dates and negations are shared), that differs in its numbers, its
  dates or its negation. The new one is staged for review next to it; nothing is overwritten.

Anything else is simply a new memory.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

# Cosine similarity of multilingual-e5 vectors (the local model): unrelated sentences already
# score about 0.75, a reworded sentence 0.95+. Tuned on German and English office facts
# (tests/memory/test_dedup.py).
NEAR_IDENTICAL = 0.965
CONFLICT_SIMILARITY = 0.90
SAME_WORDING = 0.6
STATING_KINDS = ("fact", "preference")

_SPACE = re.compile(r"\s+")
_TRAILING = re.compile(r"[\s.!;,:]+$")
_DATE = re.compile(
    r"\b(\d{1,2})\.\s?(\d{1,2})\.(?:\s?(\d{2,4}))?(?!\d)|\b(\d{4})-(\d{2})-(\d{2})\b|\b(\d{1,2})/(\d{1,2})/(\d{2,4})\b"
)
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")
_NEGATION = re.compile(
    r"\b(nicht|kein|keine|keinen|keinem|keiner|keines|nie|niemals|nein|ohne|not|no|never|none|"
    r"cannot|can't|don't|doesn't|isn't|aren't|won't|non|mai|nessun[oa]?)\b",
    re.IGNORECASE,
)


def canonical_text(text: str) -> str:
    """Unicode-normalized, case-folded, one space between words, no trailing punctuation."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _SPACE.sub(" ", text).strip()
    return _TRAILING.sub("", text)


def canonical_key(text: str, subject: tuple) -> str:
    """The dedup key of a memory: its canonical text and what it is about."""
    subject_part = "|".join("" if part is None else str(part) for part in subject)
    return hashlib.sha256(f"{canonical_text(text)}\x1f{subject_part}".encode()).hexdigest()


def _dates(text: str) -> list[str]:
    found = []
    for m in _DATE.finditer(text):
        g = m.groups()
        if g[0]:
            day, month, year = g[0], g[1], g[2] or ""
        elif g[3]:
            year, month, day = g[3], g[4], g[5]
        else:
            month, day, year = g[6], g[7], g[8]
        if len(year) == 2:
            year = "20" + year
        found.append(
            f"{year}-{int(month):02d}-{int(day):02d}" if year else f"{int(month):02d}-{int(day):02d}"
        )
    return found


def _numbers(text: str) -> list[str]:
    without_dates = _DATE.sub(" ", text)
    return [n.replace(".", "").replace(",", ".") if "," in n else n for n in _NUMBER.findall(without_dates)]


def _negated(text: str) -> bool:
    return len(_NEGATION.findall(text)) % 2 == 1


@dataclass(frozen=True)
class Claims:
    """What a text asserts that a rewording must keep: its numbers, dates and polarity."""

    numbers: tuple[str, ...]
    dates: tuple[str, ...]
    negated: bool

    @classmethod
    def of(cls, text: str) -> Claims:
        canon = canonical_text(text)
        return cls(tuple(sorted(_numbers(canon))), tuple(sorted(_dates(canon))), _negated(canon))


_WORDS = re.compile(r"[^\W\d_]{2,}", re.UNICODE)


def wording_overlap(a: str, b: str) -> float:
    """Jaccard overlap of the two texts' words, without numbers and negations: how much of the
    wording two statements share besides what they claim."""
    words_a = {w for w in _WORDS.findall(canonical_text(a)) if not _NEGATION.fullmatch(w)}
    words_b = {w for w in _WORDS.findall(canonical_text(b)) if not _NEGATION.fullmatch(w)}
    if not words_a or not words_b:
        return 0.0
    return len(words_a & words_b) / len(words_a | words_b)


def difference(new: str, old: str) -> dict | None:
    """Why two similar texts contradict each other, or None when their claims agree."""
    a, b = Claims.of(new), Claims.of(old)
    if a.dates != b.dates:
        return {"reason": "dates", "new": list(a.dates), "existing": list(b.dates)}
    if a.numbers != b.numbers:
        return {"reason": "numbers", "new": list(a.numbers), "existing": list(b.numbers)}
    if a.negated != b.negated:
        return {"reason": "negation", "new_negated": a.negated, "existing_negated": b.negated}
    return None


@dataclass(frozen=True)
class Verdict:
    kind: str  # "new" | "duplicate" | "conflict"
    existing_id: int | None = None
    explanation: dict | None = None


NEW = Verdict("new")


def judge(text: str, kind: str, candidates: list[tuple[int, str, str, str, float]]) -> Verdict:
    """The verdict for `text` against its nearest candidates of the same holder and subject:
    (id, text, kind, review, similarity), most similar first. A conflict is only ever against an
    approved memory; a duplicate may be one still waiting for review."""
    for memory_id, other, other_kind, review, similarity in candidates:
        if similarity < CONFLICT_SIMILARITY:
            break
        diff = difference(text, other)
        if diff is None:
            if similarity >= NEAR_IDENTICAL and other_kind == kind:
                return Verdict("duplicate", memory_id, {"reason": "near_identical", "similarity": similarity})
            continue
        if review != "approved" or kind not in STATING_KINDS or other_kind not in STATING_KINDS:
            continue
        overlap = wording_overlap(text, other)
        if overlap >= SAME_WORDING:
            explanation = {**diff, "similarity": round(similarity, 4), "wording_overlap": round(overlap, 2)}
            return Verdict("conflict", memory_id, explanation)
    return NEW
