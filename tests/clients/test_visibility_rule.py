"""Other apps read Mandanten through the clients app's one rule, looked up at call time
(`visibility.visible_clients(...)` or `apps.clients.services`), never around it: a rule that
changes (or the `hidden_client` test fixture) then reaches every app at once."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = {"visible_clients", "visible_cases"}
MODELS = {"Client", "Case"}
# Reads that are not "which clients may this principal see" and stay outside the rule.
ALLOWED_MODEL_READS = {
    # A document's linked clients, prefetched for its record (tasks and calendar entries show their
    # linked client the same way, through select_related).
    "apps/documents/records.py",
}


def _app_modules():
    for path in sorted((ROOT / "apps").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith("apps/clients/") or "/migrations/" in relative:
            continue
        yield relative, ast.parse(path.read_text(), filename=relative)


def test_no_app_binds_the_rule_by_name():
    """`from apps.clients.visibility import visible_clients` would keep the function object of
    import time: a patched or changed rule would not reach that module."""
    offenders = [
        f"{relative}:{node.lineno}"
        for relative, tree in _app_modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module == "apps.clients.visibility"
        and RULES & {alias.name for alias in node.names}
    ]
    assert offenders == []


def test_no_app_queries_clients_around_the_rule():
    offenders = []
    for relative, tree in _app_modules():
        imported = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "apps.clients.models"
            for alias in node.names
            if alias.name in MODELS
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in {"objects", "_default_manager", "_base_manager"}
                and isinstance(node.value, ast.Name)
                and node.value.id in imported
                and relative not in ALLOWED_MODEL_READS
            ):
                offenders.append(f"{relative}:{node.lineno}")
    assert offenders == []
