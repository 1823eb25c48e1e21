"""One registry of process-level caches (`apps.core.caches`), emptied by one fixture
(`tests/conftest.py::fresh_caches`); no test module resets a cache on its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from apps.core import caches

TESTS = Path(__file__).resolve().parent.parent
RESETS = ("cache.clear(", ".forget(", "forget_catalog(", "invalidate(", "KEY_PREFIX", "forget_all(")
# Autouse fixtures still resetting a cache of their own, to be folded into the registry by their
# owners (this list may only shrink). fresh_approval_policies preloads an empty policy table.
KNOWN = {
    "conftest.py::fresh_caches",
    "conftest.py::fresh_approval_policies",
    "core/test_dates_bounded.py::_fresh_rate_limits",
    "memory/test_api.py::_fresh_rate_limits",
}


def test_the_owners_register_their_caches():
    from apps.deadlines import office, services  # noqa: F401
    from apps.ops import health  # noqa: F401
    from apps.tools import gating  # noqa: F401

    assert {
        "apps.ops.health.forget",
        "apps.deadlines.office.forget",
        "apps.deadlines.services.forget_catalog",
        "apps.tools.gating.invalidate",
    } <= set(caches.registered())


@pytest.mark.django_db
def test_forget_all_empties_every_registered_cache():
    from apps.deadlines import office
    from apps.tools import gating

    office.office_state()
    gating.is_installed("notizen")
    assert office._cached is not None and gating._cache is not None
    caches.forget_all()
    assert office._cached is None and gating._cache is None


def test_a_registered_function_is_called_once_per_forget_all(monkeypatch):
    monkeypatch.setattr(caches, "_forgetters", dict(caches._forgetters))
    calls = []

    def forget() -> None:
        calls.append(1)

    assert caches.register(forget) is forget
    caches.register(forget)
    caches.forget_all()
    assert calls == [1]


def test_no_test_module_resets_a_cache_in_an_autouse_fixture_of_its_own():
    found = set()
    for path in TESTS.rglob("*.py"):
        source = path.read_text()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef) and any(
                "autouse=True" in ast.unparse(d) for d in node.decorator_list
            ):
                body = ast.get_source_segment(source, node) or ""
                if any(reset in body for reset in RESETS):
                    found.add(f"{path.relative_to(TESTS)}::{node.name}")
    assert found <= KNOWN, "register the cache's forget function in apps.core.caches instead"
