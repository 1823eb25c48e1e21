import pytest

from apps.accounts.principal import Principal
from apps.tools import gating
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.factories import ServicePrincipalFactory

pytestmark = pytest.mark.django_db


def test_catalog_search_finds_tools_by_words_and_family(ctx):
    result = dispatch("tool_catalog_search", {"query": "echo text"}, ctx)
    assert result.ok
    names = [r["name"] for r in result.output["results"]]
    assert names[0] == "testkit_echo"
    assert all(set(r) == {"name", "family", "summary", "read_only"} for r in result.output["results"])


def test_catalog_search_omits_gated_tools(ctx):
    gating.set_installed("testmodule", False)
    names = [r["name"] for r in dispatch("tool_catalog_search", {"query": "testkit"}, ctx).output["results"]]
    assert "testkit_gated" not in names
    assert "testkit_gated_but_core" in names
    assert "testkit_live_only" not in names  # not on the native surface


def test_family_aliases_are_normalized(ctx):
    from apps.tools.registry import normalize_family

    # Aliases come from the apps' ToolFamily declarations (tasks → aufgaben); case and dashes fold.
    assert normalize_family("Tasks") == normalize_family("aufgaben") == "aufgaben"
    assert normalize_family("Mini-Apps") == "mini_apps"
    result = dispatch("tool_catalog_search", {"query": "tasks"}, ctx)
    assert result.output["family"] == "aufgaben"


def test_catalog_expand_returns_full_schemas(ctx):
    result = dispatch("tool_catalog_expand", {"family": "testkit"}, ctx)
    assert result.ok
    echo = next(t for t in result.output["tools"] if t["name"] == "testkit_echo")
    assert echo["parameters"]["properties"]["text"]["type"] == "string"


def test_catalog_expand_unknown_family_lists_the_real_ones(ctx):
    result = dispatch("tool_catalog_expand", {"family": "astrology"}, ctx)
    assert result.code == "unknown_family"
    assert "core" in result.output["families"]


def test_context_status_for_a_user(ctx):
    gating.set_installed("testmodule", False)
    out = dispatch("clapilot_context_status", {}, ctx).output
    assert out["user"]["email"] == ctx.principal.user.email
    assert out["language"] == "de" and out["time_zone"] == "Europe/Berlin"
    assert out["modules"]["testmodule"] is False and out["modules"]["notizen"] is True
    assert out["now"].endswith(("+01:00", "+02:00"))


def test_context_status_uses_the_client_time_zone_header(user):
    ctx = ToolContext(principal=Principal.for_user(user), time_zone="America/New_York")
    assert dispatch("clapilot_context_status", {}, ctx).output["time_zone"] == "America/New_York"


def test_context_status_for_a_service_principal():
    sp = ServicePrincipalFactory(name="Morgen-Briefing")
    out = dispatch("clapilot_context_status", {}, ToolContext(principal=Principal.for_service(sp))).output
    assert out["user"] is None and out["service_principal"]["name"] == "Morgen-Briefing"


def test_session_status(user):
    ctx = ToolContext(principal=Principal.for_user(user), run_id="run-1", session_id="s-9")
    out = dispatch("session_status", {}, ctx).output
    assert (out["run_id"], out["session_id"], out["surface"]) == ("run-1", "s-9", "native")
    assert out["visible_tools"] >= 5
