"""The neutralization gate's rule pass on the German test set: recall and precision per category
and overall, the misses and false hits, and the gate's speed (ms per 10 kB of text).

    .venv/bin/python bench/neutralize.py            # scores + timing
    .venv/bin/python bench/neutralize.py --verbose  # also every miss and false hit

No database: the rule pass alone (the office's own names come from its records and are exact
matches; the timing is also measured with 2,000 office names loaded).
"""

from __future__ import annotations

import argparse
import os
import time

import _setup  # the path and settings; no database is needed here
import django

django.setup()

from apps.llm.neutralize import Gate  # noqa: E402
from tests.llm import corpus  # noqa: E402


def timing(text: str, gate_factory, repeat: int = 20) -> float:
    """ms per 10 kB, each text through a fresh gate (no memo)."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(repeat):
            gate_factory().text(text)
        best = min(best, (time.perf_counter() - started) / repeat)
    return best * 1000 * 10_240 / len(text.encode())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--verbose", action="store_true")
    args = _setup.parse(parser, {})
    report(corpus.load(), "tuning set (neutralize_de.txt)", args.verbose)
    report(corpus.load(corpus.HOLDOUT), "held-out set (neutralize_de_holdout.txt)", args.verbose)
    snippets = corpus.load()
    text = "\n\n".join(s.text for s in snippets)
    while len(text.encode()) < 10_240:
        text += "\n\n" + text
    office = [("MANDANT", f"Mandant{i:04d} Beispiel GmbH") for i in range(1000)]
    office += [("PERSON", f"Vorname{i:04d} Nachname{i:04d}") for i in range(500)]
    office += [("PERSON~", f"Nachname{i:04d}") for i in range(500)]
    Gate(office).text("warm up")  # compile and cache the office pattern
    size = len(text.encode()) / 1024
    print(f"speed on {size:.0f} kB of letters (load average {os.getloadavg()[0]:.2f}):")
    print(f"  rule pass only:          {timing(text, Gate):.2f} ms per 10 kB")
    print(f"  with 2,000 office names: {timing(text, lambda: Gate(office)):.2f} ms per 10 kB")


def report(snippets: list, title: str, verbose: bool) -> None:
    result = corpus.score(snippets, lambda text: Gate().spans(text))
    print(title)
    kinds = sorted(set(result.gold) | set(result.predicted))
    print(f"{len(snippets)} snippets, {sum(result.gold.values())} annotated spans")
    print(f"{'category':<14}{'gold':>6}{'recall':>9}{'predicted':>11}{'precision':>11}")
    for kind in kinds:
        print(
            f"{kind:<14}{result.gold[kind]:>6}{result.recall(kind):>9.3f}"
            f"{result.predicted[kind]:>11}{result.precision(kind):>11.3f}"
        )
    print(
        f"{'overall':<14}{sum(result.gold.values()):>6}{result.recall():>9.3f}"
        f"{sum(result.predicted.values()):>11}{result.precision():>11.3f}"
    )
    if verbose:
        for ident, kind, text in result.misses:
            print(f"  miss  {ident} {kind}: {text!r}")
        for ident, kind, text in result.false:
            print(f"  false {ident} {kind}: {text!r}")
    print()


if __name__ == "__main__":
    main()
