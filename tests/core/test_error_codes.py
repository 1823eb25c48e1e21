"""Every error code is declared once, in one style, and listed in the catalog."""

import json
import re

from django.core.management import call_command

from apps.core import errors

SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def project_declarations() -> dict[str, list[str]]:
    errors.load_all()
    return {
        code: [f"{c.__module__}.{c.__qualname__}" for c in classes if c.__module__.startswith("apps.")]
        for code, classes in errors.DECLARED.items()
    }


def test_every_code_is_declared_by_exactly_one_class():
    clashes = {code: where for code, where in project_declarations().items() if len(where) > 1}
    assert clashes == {}


def test_codes_are_snake_case_except_the_seed_envelope():
    from apps.tools.errors import ENVELOPE_CODES

    envelope = {code for code in ENVELOPE_CODES if code.startswith("CLAPILOT_")}
    codes = set(project_declarations()) | set(ENVELOPE_CODES)
    assert sorted(c for c in codes - envelope if not SNAKE.match(c.split(":")[0])) == []


def test_envelope_codes_do_not_collide_with_declared_ones():
    from apps.tools.errors import ENVELOPE_CODES

    assert set(ENVELOPE_CODES) & set(project_declarations()) == set()


def test_catalog_command_lists_every_code(capsys):
    call_command("error_codes", "--json")
    rows = json.loads(capsys.readouterr().out)
    listed = {r["code"] for r in rows}
    assert set(project_declarations()) <= listed
    assert {"task_not_found", "invalid_input", "version_conflict", "CLAPILOT_TOOL_EXECUTION_FAILED"} <= listed
    assert all(r["app"] and r["description"] is not None for r in rows)


def test_the_api_docs_list_every_code(client):
    response = client.get("/api/schema/", {"format": "json"})
    description = response.json()["info"]["description"]
    assert "## Error codes" in description
    assert all(f"`{code}`" in description for code in project_declarations())
