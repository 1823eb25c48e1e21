"""A chat with the scripted model (real HTTP, the whole loop): the copilot queries an allowed
table and gets the rows; a write pauses the run, and runs exactly once after approval."""

from __future__ import annotations

import json
from typing import Any

import pytest
from guardian.shortcuts import assign_perm

from apps.accounts.principal import Principal
from apps.agent.models import Message, Run
from apps.approvals import decisions
from apps.approvals.models import StagedCall
from tests.agent.conftest import model, provider  # noqa: F401  (fixtures)
from tests.agent.helpers import ask
from tests.connectors.conftest import make_connector

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("model")]


@pytest.fixture(autouse=True)
def no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    from apps.agent import services as agent

    monkeypatch.setattr(agent, "_enqueue", lambda run_id: None)


@pytest.fixture
def zeiterfassung(user: Any, sqlite_file: str) -> Any:
    c = make_connector("sqlite", sqlite_file)
    assign_perm("connectors.use_connector", user, c)
    return c


def _tool_result(run: Run, call_index: int = 0) -> dict[str, Any]:
    call = run.session.messages.filter(role=Message.Role.ASSISTANT).first().tool_calls[call_index]
    return dict(json.loads(run.session.messages.get(tool_call_id=call["id"]).content))


def test_the_copilot_reads_an_allowed_table(user: Any, fake_openai: Any, zeiterfassung: Any) -> None:
    query = {
        "connector": "Zeiterfassung",
        "action": "query",
        "sql": "SELECT name FROM mandanten WHERE id <= 2 ORDER BY id",
    }
    fake_openai.tool_calls(("database", query))
    fake_openai.reply("Müller GmbH und Rossi S.r.l.")
    run = ask(user, "Welche Mandanten stehen in der Zeiterfassung?")
    run.refresh_from_db()
    assert run.status == Run.Status.COMPLETED, (run.error_code, run.diagnostics)
    result = _tool_result(run)
    assert result["ok"] is True and result["output"]["rows"] == [["Müller GmbH"], ["Rossi S.r.l."]]


def test_a_write_waits_and_runs_once_after_approval(user: Any, fake_openai: Any, zeiterfassung: Any) -> None:
    insert = {
        "connector": "Zeiterfassung",
        "action": "insert",
        "table": "mandanten",
        "columns": ["id", "name"],
        "values": [[77, "Chat GmbH"]],
    }
    fake_openai.tool_calls(("database", insert))
    fake_openai.reply("This answer must never be asked for.")
    run = ask(user, "Lege den Mandanten Chat GmbH an")
    run.refresh_from_db()
    assert run.status == Run.Status.WAITING
    staged = StagedCall.objects.get()
    assert (staged.tool, staged.operation, staged.status) == ("database", "insert", StagedCall.Status.PENDING)
    assert _tool_result(run)["code"] == "approval_required"

    decisions.approve(Principal.for_user(user), staged.pk)
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.EXECUTED, staged.result
    import sqlite3

    conn = sqlite3.connect(zeiterfassung.path)
    assert conn.execute("SELECT COUNT(*) FROM mandanten WHERE id = 77").fetchone() == (1,)
    conn.close()
