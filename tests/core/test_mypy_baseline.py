"""The type-check gate (scripts/mypy_baseline.py, run by `make lint`): an error outside the
committed baseline fails; fixed errors may be dropped; the baseline never grows by itself."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "mypy_baseline.py"


@pytest.fixture
def gate(monkeypatch, tmp_path):
    spec = importlib.util.spec_from_file_location("mypy_baseline", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "BASELINE", tmp_path / "mypy-baseline.txt")

    def found(*lines: str) -> None:
        errors: Counter[str] = Counter()
        raw: dict[str, list[str]] = {}
        for line in lines:
            match = module.ERROR.match(line)
            entry = f"{match['path']}: {module.LINE_REFERENCE.sub('line N', match['message'])}"
            errors[entry] += 1
            raw.setdefault(entry, []).append(line)
        monkeypatch.setattr(module, "run_mypy", lambda: (errors, raw, 1 if errors else 0))

    module.found = found
    return module


OLD = 'apps/x.py:10: error: Missing type arguments for generic type "dict"  [type-arg]'
MOVED = 'apps/x.py:12: error: Missing type arguments for generic type "dict"  [type-arg]'
NEW = "apps/x.py:20: error: Function is missing a type annotation  [no-untyped-def]"


def test_an_error_outside_the_baseline_fails_and_a_moved_one_does_not(gate, capsys):
    gate.found(OLD)
    assert gate.main(["--update", "--accept-new"]) == 0
    gate.found(MOVED)
    assert gate.main([]) == 0
    gate.found(MOVED, NEW)
    assert gate.main([]) == 1
    assert NEW in capsys.readouterr().out


def test_a_second_equal_error_in_one_file_is_new(gate):
    gate.found(OLD)
    gate.main(["--update", "--accept-new"])
    gate.found(OLD, MOVED)
    assert gate.main([]) == 1


def test_the_baseline_only_shrinks(gate):
    gate.found(OLD, NEW)
    gate.main(["--update", "--accept-new"])
    gate.found(OLD)  # NEW was fixed
    assert gate.main(["--update"]) == 0
    assert gate.read_baseline() == Counter(
        {'apps/x.py: Missing type arguments for generic type "dict"  [type-arg]': 1}
    )
    gate.found(OLD, NEW)  # it comes back: --update does not record it
    assert gate.main(["--update"]) == 1
    assert sum(gate.read_baseline().values()) == 1
