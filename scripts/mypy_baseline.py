"""mypy over apps/ and clapilot/ (configured in pyproject.toml), compared with the committed
baseline `mypy-baseline.txt`: the errors that existed when the type checker came in. An error not
in the baseline fails (`make lint`, CI, pre-commit); the baseline may only shrink.

    python scripts/mypy_baseline.py                 # check
    python scripts/mypy_baseline.py --update        # drop the errors fixed since (shrink only)
    python scripts/mypy_baseline.py --update --accept-new   # record today's errors (rarely!)

An entry is "path: message [code]" without the line number, so moving code does not count as a
new error; two equal errors in one file are two entries."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "mypy-baseline.txt"
ERROR = re.compile(r"^(?P<path>[^:\s]+\.pyi?):(?P<line>\d+): error: (?P<message>.*)$")
LINE_REFERENCE = re.compile(r"\bline \d+")


def run_mypy() -> tuple[Counter[str], dict[str, list[str]], int]:
    """The current errors as baseline entries, the raw lines per entry, and mypy's exit status."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--no-pretty", "--no-color-output"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    errors: Counter[str] = Counter()
    raw: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        match = ERROR.match(line)
        if match:
            entry = f"{match['path']}: {LINE_REFERENCE.sub('line N', match['message'])}"
            errors[entry] += 1
            raw.setdefault(entry, []).append(line)
    if done.returncode not in (0, 1) or (done.returncode == 1 and not errors):
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"mypy did not run (exit status {done.returncode})")
    return errors, raw, done.returncode


def read_baseline() -> Counter[str]:
    if not BASELINE.exists():
        return Counter()
    return Counter(line for line in BASELINE.read_text().splitlines() if line and not line.startswith("#"))


def write_baseline(errors: Counter[str]) -> None:
    lines = sorted(errors.elements())
    header = (
        "# mypy errors accepted when the type checker came in; may only shrink (scripts/mypy_baseline.py)\n"
    )
    BASELINE.write_text(header + "".join(f"{line}\n" for line in lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--update", action="store_true", help="rewrite the baseline without the fixed errors")
    parser.add_argument("--accept-new", action="store_true", help="with --update: record new errors too")
    args = parser.parse_args(argv)

    current, raw, _ = run_mypy()
    baseline = read_baseline()
    new = current - baseline
    fixed = baseline - current
    if args.update:
        kept = current if args.accept_new else current & baseline
        write_baseline(kept)
        print(f"mypy baseline: {sum(kept.values())} errors recorded ({sum(fixed.values())} fixed dropped)")
        if new and not args.accept_new:
            print(f"{sum(new.values())} new errors were not recorded; fix them (or --accept-new)")
            return 1
        return 0
    if new:
        print(f"mypy: {sum(new.values())} errors not in the baseline (mypy-baseline.txt):")
        for entry in sorted(new):
            for line in raw[entry]:  # which of several equal errors is the new one cannot be told
                print(f"  {line}")
        return 1
    print(f"mypy: no errors outside the baseline ({sum(current.values())} in it still)", end="")
    if fixed:
        print(f"; {sum(fixed.values())} fixed: shrink it with `make mypy-baseline`")
    else:
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
