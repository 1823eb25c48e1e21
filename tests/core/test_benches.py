"""Benches that do not rot (issue #28): every bench of bench/ runs at its tiny size (`--tiny`, as
`make bench B=<name> ARGS=--tiny`) as a subprocess, in the normal suite; one that exits non-zero
(a stub that no longer fits the code it drives, a missing package) fails here.

bench/duplicates.sh is no bench of the product: it needs the `duplicates` tool of the machine's
tool library, not anything the project installs."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

from tests.live import ROOT

BENCHES = sorted(p.stem for p in (ROOT / "bench").glob("[a-z]*.py"))
TIMEOUT = 240


def test_every_bench_is_listed():
    assert {"agent_loop", "load", "mutation_fanout", "jobs"} <= set(BENCHES)


# 10 s to 5 min a bench on the shared 2-core machine (a throwaway database, Django, servers):
# slow, still part of make test
@pytest.mark.slow
@pytest.mark.parametrize("bench", BENCHES)
def test_bench_runs_at_its_tiny_size(bench, tmp_path):
    env = {
        **os.environ,
        # a database of its own (a copy of the benches' template); the test's stays untouched
        "CLAPILOT_TEST_DATABASE": f"bench_tiny_{bench}_{uuid.uuid4().hex[:6]}",
        "PYTHONDONTWRITEBYTECODE": "",
    }
    env.pop("REDIS_URL", None)
    try:
        result = subprocess.run(
            [sys.executable, f"bench/{bench}.py", "--tiny"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"bench/{bench}.py --tiny ran longer than {TIMEOUT} s: {(exc.stdout or '')[-2000:]}")
    assert result.returncode == 0, (
        f"bench/{bench}.py --tiny exited with {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
    )
