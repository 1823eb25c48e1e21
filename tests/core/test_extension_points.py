"""The manifest is checked at start (DESIGN §3a): an app owning an extension point declares what
a contribution must be; `extends` naming an unknown point or a contribution of the wrong type
fails the system check; and every installed app sits in an import-linter layer."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings

from apps.core import plugins
from apps.core.checks import declarations
from apps.core.plugins import ExtensionPoint


def test_the_installed_declarations_pass_the_start_up_check():
    assert declarations() == []


def test_every_point_the_apps_fill_is_declared_by_its_owner():
    points = plugins.extension_points()
    assert {"review.queues", "knowledge.sources", "clients.page_sections", "tools.approval"} <= set(points)
    used = {point for config in plugins.domain_apps() for point in config.extends}
    assert used <= set(points)


@pytest.fixture
def tasks_config():
    return apps.get_app_config("tasks")


def test_an_unknown_extension_point_fails_the_check(monkeypatch, tasks_config):
    monkeypatch.setattr(tasks_config, "extends", {"clients.page_section": ["apps.tasks.client_page.section"]})
    [error] = declarations()
    assert error.id == "clapilot.E004" and "'clients.page_section'" in error.msg
    assert "clients.page_sections" in error.hint


def test_a_contribution_of_the_wrong_type_fails_the_check(monkeypatch, tasks_config):
    # A table where the client page expects a callable; a function where review expects a queue.
    monkeypatch.setattr(
        tasks_config,
        "extends",
        {
            "clients.page_sections": ["apps.tools.errors.ENVELOPE_CODES"],
            "review.queues": ["apps.tasks.client_page.section"],
        },
    )
    errors = declarations()
    assert [e.id for e in errors] == ["clapilot.E005", "clapilot.E005"]
    assert "ENVELOPE_CODES" in errors[0].msg and "Callable" in errors[0].msg
    assert "QueueKind" in errors[1].msg


def test_a_single_point_takes_one_contribution(monkeypatch, tasks_config):
    monkeypatch.setattr(tasks_config, "extends", {"tools.approval": ["apps.approvals.policy.STEP"]})
    [error] = declarations()
    assert error.id == "clapilot.E006" and "tools.approval" in error.msg


def test_a_protocol_contract_is_checked_by_its_members():
    from apps.approvals.policy import STEP

    point = ExtensionPoint("apps.tools.approval.ApprovalStep")
    assert point.accepts(STEP)
    assert not point.accepts(object())
    assert ExtensionPoint(Callable).accepts(len) and not ExtensionPoint(Callable).accepts({})


def test_every_installed_app_sits_in_an_import_linter_layer():
    config = tomllib.loads((Path(settings.BASE_DIR) / "pyproject.toml").read_text())
    [layers] = [c["layers"] for c in config["tool"]["importlinter"]["contracts"] if c.get("type") == "layers"]
    layered = {name.strip() for layer in layers for name in layer.split("|")}
    installed = {app.removeprefix("apps.") for app in settings.INSTALLED_APPS if app.startswith("apps.")}
    assert installed - layered == set(), "add the app to [tool.importlinter] layers in pyproject.toml"
