"""The rule pass of the neutralization gate on the German test set (`tests/llm/data/`): floors for
recall and precision, negatives that must stay, and speed. `bench/neutralize.py` prints the
figures per category.

Measured (see the bench): tuning set 1.00 / 1.00; the held-out set, written after the rules and
measured once before it was looked at, had recall 0.81 and precision 0.93, after one round of
fixes (rules that generalize, no names added for it) 0.94 / 1.00. The floors leave room for that gap.
"""

from __future__ import annotations

import time

import pytest

from apps.llm.neutralize import Gate
from tests.llm import corpus

RECALL_FLOOR = 0.90
PRECISION_FLOOR = 0.95
CATEGORY_RECALL_FLOOR = 0.80
MS_PER_10KB_CEILING = 60.0  # measured 7–25 ms on this 2-core machine under load 4–7


@pytest.fixture(scope="module")
def snippets():
    return corpus.load() + corpus.load(corpus.HOLDOUT)


def test_recall_and_precision_floors(snippets):
    result = corpus.score(snippets, lambda text: Gate().spans(text))
    assert sum(result.gold.values()) >= 150 and len(snippets) >= 60
    assert result.recall() >= RECALL_FLOOR, result.misses
    assert result.precision() >= PRECISION_FLOOR, result.false
    for kind in result.gold:
        assert result.recall(kind) >= CATEGORY_RECALL_FLOOR, (kind, result.misses)


def test_negatives_stay_untouched(snippets):
    negatives = [s for s in snippets if not s.gold]
    assert len(negatives) >= 12
    gate = Gate()
    for snippet in negatives:
        assert gate.text(snippet.text) == snippet.text, snippet.ident


@pytest.mark.parametrize(
    "text",
    [
        "Der Herr der Ringe",
        "Sehr geehrte Damen und Herren",
        "§ 203 StGB und § 57 Abs. 1 StBerG",
        "am 12. März 2024 und im Mai",
        "1.234,56 EUR, 25000 Euro, 12000 Mitarbeiter",
        "Gläubiger-ID: DE98ZZZ09999999999",
        "Im Berichtsjahr 2023",
    ],
)
def test_named_negatives(text):
    assert Gate().text(text) == text


def test_masked_text_round_trips():
    gate = Gate()
    text = "\n\n".join(s.text for s in corpus.load()[:10])
    masked = gate.text(text)
    assert masked != text and "Wiesinger" not in masked and "Quirrenbach" not in masked
    assert gate.restore(masked) == text


def test_a_name_found_once_is_found_alone_later():
    gate = Gate()
    assert gate.text("Sehr geehrter Herr Dr. Konrad Wiesinger,") == "Sehr geehrter Herr Dr. [NAME_1],"
    assert gate.text("Wiesinger hat angerufen.") == "[NAME_2] hat angerufen."


def test_speed_per_10kb():
    text = "\n\n".join(s.text for s in corpus.load())
    while len(text.encode()) < 10_240:
        text += "\n\n" + text
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        Gate().text(text)
        best = min(best, time.perf_counter() - started)
    assert best * 1000 * 10_240 / len(text.encode()) < MS_PER_10KB_CEILING
