"""Every dispatcher code, and that a failing call writes nothing and publishes nothing."""

import logging

import pytest

from apps.accounts.principal import Principal
from apps.core.models import InstanceSetting
from apps.tools import gating
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from apps.tools.models import ToolExecution
from tests.factories import ServicePrincipalFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_success_returns_the_standard_shape_and_an_audit_row(ctx):
    result = dispatch("testkit_echo", {"text": "hi", "times": 2}, ctx)
    assert result.as_dict() == {
        "ok": True,
        "output": {"text": "hihi"},
        "code": None,
        "message": "",
        "ui_actions": [],
        "trigger_reload": False,
        "refresh_topic": "",
        "mutation_event_id": None,
    }
    audit = ToolExecution.objects.get()
    assert (audit.tool, audit.ok, audit.user_id, audit.surface) == (
        "testkit_echo",
        True,
        ctx.principal.user.pk,
        "native",
    )
    assert len(audit.args_digest) == 64 and "hi" not in audit.args_digest


def test_strict_mode_nulls_take_the_defaults(ctx):
    assert dispatch("testkit_echo", {"text": "a", "times": None}, ctx).output == {"text": "a"}


def test_arguments_may_arrive_as_a_json_string(ctx):
    assert dispatch("testkit_echo", '{"text": "x"}', ctx).ok


def test_unknown_tool(ctx):
    result = dispatch("nope_tool", {}, ctx)
    assert (result.ok, result.code) == (False, "unknown_tool")
    assert "nope_tool" in result.message


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"text": "x" * 51}, "text"),
        ({"text": "a", "times": 9}, "times"),
        ({"text": "a", "unexpected": 1}, "unexpected"),
        ({}, "text"),
        ({"text": 5}, "text"),
    ],
)
def test_invalid_arguments_name_the_field(ctx, args, field):
    result = dispatch("testkit_echo", args, ctx)
    assert (result.ok, result.code) == (False, "invalid_arguments")
    assert field in [e["field"] for e in result.output["field_errors"]]
    assert field in result.message


@pytest.mark.parametrize("raw", ["{not json", "[1, 2]", 42])
def test_malformed_arguments(ctx, raw):
    result = dispatch("testkit_echo", raw, ctx)
    assert result.code == "invalid_arguments"


def test_domain_error_keeps_its_code_and_rolls_back(ctx):
    result = dispatch("testkit_write", {"key": "k1", "fail": "domain"}, ctx)
    assert (result.ok, result.code, result.message) == (
        False,
        "testkit_failure",
        "Die Aufgabe gibt es nicht.",
    )
    assert not InstanceSetting.objects.filter(key="k1").exists()


@pytest.mark.parametrize("fail", ["crash", "database"])
def test_unexpected_failures_are_logged_localized_and_leak_nothing(ctx, fail, caplog):
    with caplog.at_level(logging.ERROR, logger="apps.tools.dispatcher"):
        result = dispatch("testkit_write", {"key": "k2", "fail": fail}, ctx)
    assert (result.ok, result.code) == (False, "CLAPILOT_TOOL_EXECUTION_FAILED")
    assert "hunter2" not in result.message and "secret_table" not in result.message
    assert "unerwartet" in result.message  # the user's language is German
    assert "Traceback" in caplog.text or caplog.records[0].exc_info
    assert not InstanceSetting.objects.filter(key="k2").exists()


def test_failure_message_follows_the_principal_language(user):
    user.language = "en"
    user.save()
    result = dispatch(
        "testkit_write", {"key": "k3", "fail": "crash"}, ToolContext(principal=Principal.for_user(user))
    )
    assert "failed unexpectedly" in result.message


def test_unserializable_output_fails_and_rolls_back(ctx):
    result = dispatch("testkit_write", {"key": "k4", "fail": "unserializable"}, ctx)
    assert (result.ok, result.code) == (False, "CLAPILOT_TOOL_OUTPUT_SERIALIZATION_FAILED")
    assert not InstanceSetting.objects.filter(key="k4").exists()


def test_write_success_returns_ui_actions(ctx):
    result = dispatch("testkit_write", {"key": "k5"}, ctx)
    assert result.ok and result.ui_actions == [{"type": "highlight", "record_id": "k5"}]
    assert InstanceSetting.objects.get(key="k5").value == {"by": str(ctx.principal.user)}


def test_user_requiring_tool_without_a_user():
    ctx = ToolContext(principal=Principal.for_service(ServicePrincipalFactory()))
    result = dispatch("testkit_write", {"key": "k6"}, ctx)
    assert result.code == "CLAPILOT_NO_USER_CONTEXT"
    assert not InstanceSetting.objects.filter(key="k6").exists()


def test_team_room_member_counts_as_user_context():
    member = UserFactory()
    ctx = ToolContext(
        principal=Principal.for_service(ServicePrincipalFactory(kind="team_room"), acting_user=member)
    )
    assert dispatch("testkit_write", {"key": "k7"}, ctx).ok


def test_disabled_service_principal_is_forbidden_immediately():
    sp = ServicePrincipalFactory()
    ctx = ToolContext(principal=Principal.for_service(sp))
    assert dispatch("testkit_echo", {"text": "a"}, ctx).ok
    type(sp).objects.filter(pk=sp.pk).update(is_active=False)
    assert dispatch("testkit_echo", {"text": "a"}, ctx).code == "forbidden"


def test_specialist_allowlist(user):
    ctx = ToolContext(principal=Principal.for_user(user), allowed_tools=frozenset({"session_status"}))
    assert dispatch("testkit_echo", {"text": "a"}, ctx).code == "forbidden"
    assert dispatch("session_status", {}, ctx).ok


def test_api_key_without_the_scope(user):
    ctx = ToolContext(principal=Principal.for_user(user), surface="api", scopes=frozenset({"memory:read"}))
    assert dispatch("testkit_echo", {"text": "a"}, ctx).code == "forbidden"


def test_tool_not_exposed_on_this_surface(ctx):
    assert dispatch("testkit_live_only", {}, ctx).code == "forbidden"


def test_module_gating_rejects_uninstalled_modules(ctx):
    assert dispatch("testkit_gated", {}, ctx).ok  # legacy_all: installed
    gating.set_installed("testmodule", False)
    result = dispatch("testkit_gated", {}, ctx)
    assert result.code == "module_not_installed:testmodule"
    assert "testmodule" in result.message and "nicht installiert" in result.message
    # a tool that also belongs to a core family is never gated
    assert dispatch("testkit_gated_but_core", {}, ctx).ok


def test_minimal_policy_installs_only_the_minimal_set(ctx):
    gating.set_policy("minimal")
    assert dispatch("testkit_gated", {}, ctx).code == "module_not_installed:testmodule"
    assert gating.is_installed("notizen")
    gating.set_installed("testmodule", True)  # a row overrides the policy
    assert dispatch("testkit_gated", {}, ctx).ok


def test_gating_fails_open_when_the_table_is_unavailable(ctx, monkeypatch):
    def broken():
        raise RuntimeError("relation does not exist")

    monkeypatch.setattr(gating, "_load", broken)
    gating.invalidate()
    assert gating.is_installed("testmodule")


def test_tool_execute_runs_the_target_and_respects_gating(ctx):
    result = dispatch("tool_execute", {"tool": "testkit_echo", "arguments": '{"text": "z"}'}, ctx)
    assert result.ok and result.output == {"text": "z"}
    gating.set_installed("testmodule", False)
    gated = dispatch("tool_execute", {"tool": "testkit_gated", "arguments": "{}"}, ctx)
    assert gated.code == "module_not_installed:testmodule"
    bad = dispatch("tool_execute", {"tool": "testkit_echo", "arguments": '{"text": 1}'}, ctx)
    assert bad.code == "invalid_arguments"
    assert (
        dispatch("tool_execute", {"tool": "tool_execute", "arguments": "{}"}, ctx).code == "invalid_arguments"
    )
