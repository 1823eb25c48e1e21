"""The date bound over MCP (issue 25, item 3): memory_store with a year-9999 validity is refused
with the same field error as on the other surfaces, and nothing is stored."""

from __future__ import annotations

import pytest

from apps.memory.models import Memory
from tests.mcp_server.test_memory import FACT, session

pytestmark = pytest.mark.django_db(transaction=True)


def test_memory_store_refuses_a_validity_out_of_range(connect, make_key):
    _, refused, fine = session(
        connect,
        make_key("memory:write"),
        ("memory_store", {"text": FACT, "valid_until": "9999-12-31T23:59:59Z"}),
        ("memory_store", {"text": FACT, "valid_until": "2200-12-31T23:59:59Z"}),
    )
    assert refused.is_error, refused.structured_content
    assert refused.structured_content["code"] == "invalid_arguments"
    errors = refused.structured_content["output"]["field_errors"]
    assert {"field": "valid_until", "type": "date_out_of_range"} in [
        {"field": e["field"], "type": e["type"]} for e in errors
    ]
    assert not fine.is_error, fine.structured_content
    assert [m.valid_until.year for m in Memory.objects.all()] == [2200]  # in UTC
