import jsonschema
import pytest
from django.core.management import call_command

from apps.tools import registry
from apps.tools.registry import RegistryError, Tool
from apps.tools.schema import strict_violations


def test_every_registered_tool_has_a_valid_strict_schema():
    tools = registry.all_tools()
    assert len({t.name for t in tools}) == len(tools)
    for t in tools:
        jsonschema.Draft202012Validator.check_schema(t.schema)
        assert strict_violations(t.schema) == [], t.name
        fn = t.openai_function()
        assert fn["function"]["strict"] is True and fn["function"]["name"] == t.name


def test_a_second_tool_with_the_same_name_is_refused():
    existing = registry.get("session_status")
    clone = Tool(**{**existing.__dict__, "handler": lambda ctx, args: None})
    with pytest.raises(RegistryError):
        registry.register(clone)


def test_field_named_title_survives_and_optional_fields_become_nullable():
    from pydantic import Field

    from apps.tools.args import Args
    from apps.tools.schema import strict_schema

    class M(Args):
        title: str = Field(max_length=10, title="Title")
        due: str | None = None
        count: int = 3

    schema = strict_schema(M)
    assert set(schema["properties"]) == {"title", "due", "count"}
    assert schema["required"] == ["title", "due", "count"]
    assert "null" in schema["properties"]["count"]["type"]
    assert "maxLength" not in schema["properties"]["title"]
    assert strict_violations(schema) == []


def test_catalog_command_lists_every_tool(capsys):
    call_command("tool_catalog")
    out = capsys.readouterr().out
    assert "tool_catalog_search" in out and "clapilot_context_status" in out


@pytest.mark.django_db
def test_catalog_command_json(capsys):
    call_command("tool_catalog", "--json", "--family", "core")
    assert '"parameters"' in capsys.readouterr().out
