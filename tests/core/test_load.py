"""The load suite's bounded version (bench/load.py runs the full one: 50 clients, 200 sockets,
60 s): 20 clients mixing pages, REST and tool calls while 40 WebSockets are open, for 10 s against
a real daphne, embedded channel layer. No error, and every mutation event reaches exactly the
sockets that may see it, exactly once."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from django.db import connection

from tests.live import ROOT, live_daphne

pytestmark = pytest.mark.django_db(transaction=True)


def _loadgen():
    spec = importlib.util.spec_from_file_location("clapilot_bench_loadgen", ROOT / "bench" / "_loadgen.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve the module's annotations through it
    spec.loader.exec_module(module)
    return module


def test_twenty_clients_and_forty_sockets_for_ten_seconds(tmp_path, capsys):
    loadgen = _loadgen()
    people, shared_board = loadgen.prepare(5)
    with live_daphne(
        tmp_path, {"CLAPILOT_API_KEY_RATE": "10000000/min", "CLAPILOT_DB_POOL_SIZE": "10"}
    ) as server:
        plan = loadgen.LoadPlan(
            port=server.port,
            app_name=server.application_name,
            clients=20,
            sockets=40,
            duration=10,
            drain=20,
            log=server.log,
            pool_size=10,
        )
        result = loadgen.run_load(plan, people, shared_board)
    connection.close()
    report = capsys.readouterr().out
    assert result["errors"] == 0, report
    assert result["writes"] > 0 and result["events"] >= result["writes"], report
    assert result["lost"] == 0 and result["duplicated"] == 0 and result["misdelivered"] == 0, report
    assert result["delivered"] == result["expected"] > 0, report
    assert result["closed_early"] == 0, report
    assert result["db_sessions_peak"] <= 10 + 10, report
    assert not result["failed"], report
