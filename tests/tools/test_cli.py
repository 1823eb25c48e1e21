"""The `clapilot` CLI against a real HTTP server, generated from the live catalog."""

import json

import pytest

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from clapilot import cli
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def env(live_server, monkeypatch):
    admin = UserFactory(role="admin", is_superuser=True, email="cli@kanzlei.example")
    _, plaintext = keys.create_api_key(Principal.for_user(admin), name="cli", scopes=["tools:execute"])
    monkeypatch.setenv("CLAPILOT_URL", live_server.url)
    monkeypatch.setenv("CLAPILOT_API_KEY", plaintext)


def test_list_describe_and_run(env, capsys):
    assert cli.main(["tools", "list"]) == 0
    assert "testkit_echo" in capsys.readouterr().out
    assert cli.main(["tools", "describe", "testkit_echo"]) == 0
    assert json.loads(capsys.readouterr().out)["parameters"]["properties"]["text"]
    assert cli.main(["tools", "run", "testkit_echo", "--arg", "text=ab", "--arg", "times=2"]) == 0
    assert json.loads(capsys.readouterr().out)["output"] == {"text": "abab"}


def test_failures_exit_non_zero_with_a_clear_message(env, capsys):
    assert cli.main(["tools", "run", "testkit_echo", "--json", '{"text": 5}']) == 1
    assert json.loads(capsys.readouterr().out)["code"] == "invalid_arguments"
    assert cli.main(["tools", "run", "testkit_echo", "--arg", "colour=red"]) == 2
    assert "no parameter 'colour'" in capsys.readouterr().err
    assert cli.main(["tools", "describe", "testkit_ech"]) == 2
    assert "Did you mean" in capsys.readouterr().err


def test_missing_configuration(monkeypatch, capsys):
    monkeypatch.delenv("CLAPILOT_URL", raising=False)
    monkeypatch.delenv("CLAPILOT_API_KEY", raising=False)
    assert cli.main(["tools", "list"]) == 2
    assert "CLAPILOT_URL" in capsys.readouterr().err


def test_a_wrong_key_is_reported(live_server, monkeypatch, capsys):
    monkeypatch.setenv("CLAPILOT_URL", live_server.url)
    monkeypatch.setenv("CLAPILOT_API_KEY", "clp_nothing.wrong")
    assert cli.main(["tools", "list"]) == 2
    assert "refused the key (401)" in capsys.readouterr().err


def test_describe_shows_the_output_schema(env, capsys):
    assert cli.main(["tools", "describe", "mandanten_get"]) == 0
    described = json.loads(capsys.readouterr().out)
    assert described["output_schema"]["required"] == ["client"]
