"""A Database write waits for a person and runs exactly once when approved (apps.approvals)."""

from __future__ import annotations

from typing import Any

import pytest

from apps.accounts.principal import Principal
from apps.approvals import decisions
from apps.approvals.models import StagedCall
from apps.connectors.models import Connector
from apps.core.errors import DomainError
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db

INSERT = {
    "connector": "Zeiterfassung",
    "action": "query",
    "sql": "INSERT INTO mandanten (id, name) VALUES (?, ?)",
    "params": [42, "Freigegeben GmbH"],
}
COUNT = {
    "connector": "Zeiterfassung",
    "action": "query",
    "sql": "SELECT COUNT(*) FROM mandanten WHERE id = ?",
    "params": [42],
}


def test_staged_write_runs_once_after_approval(
    connector: Connector, anna: Any, anna_ctx: ToolContext
) -> None:
    staged = dispatch("database", INSERT, anna_ctx)
    assert staged.code == "approval_required" and staged.output["operation"] == "insert"
    assert "INSERT" in staged.output["preview"] and "Zeiterfassung" in staged.output["preview"]
    assert dispatch("database", COUNT, anna_ctx).output["rows"] == [[0]]

    decided = decisions.approve(Principal.for_user(anna), staged.output["staged_id"])
    assert decided.status == StagedCall.Status.EXECUTED, decided.result
    assert dispatch("database", COUNT, anna_ctx).output["rows"] == [[1]]
    with pytest.raises(DomainError):
        decisions.approve(Principal.for_user(anna), staged.output["staged_id"])
    assert dispatch("database", COUNT, anna_ctx).output["rows"] == [[1]]


def test_a_read_runs_without_approval(connector: Connector, anna_ctx: ToolContext) -> None:
    r = dispatch("database", COUNT, anna_ctx)
    assert r.ok and not StagedCall.objects.exists()


def test_denied_write_never_runs(connector: Connector, anna: Any, anna_ctx: ToolContext) -> None:
    # The foreign databases live for the session: this test writes its own id.
    staged = dispatch("database", {**INSERT, "params": [43, "Abgelehnt GmbH"]}, anna_ctx)
    decisions.deny(Principal.for_user(anna), staged.output["staged_id"])
    count = dispatch("database", {**COUNT, "params": [43]}, anna_ctx)
    assert count.output["rows"] == [[0]]
