"""calendar_compute_deadline and /api/v1/deadlines/…: answers, stable error codes, nothing written."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.deadlines import services
from apps.deadlines.models import DeadlineRule
from apps.mutations.models import MutationEvent
from apps.tools import registry
from apps.tools.dispatcher import dispatch
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(anna):
    _, token = keys.issue_device_token(anna, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def call(ctx, **args):
    return dispatch("calendar_compute_deadline", args, ctx)


def test_the_tool_is_read_only_in_the_calendar_family():
    tool = registry.get("calendar_compute_deadline")
    assert tool.read_only and tool.family == "calendar" and not tool.is_gated
    assert set(tool.schema["properties"]) == {
        "trigger_date",
        "rule",
        "amount",
        "unit",
        "posted",
        "trigger_kind",
        "state",
    }


def test_tool_computes_a_catalog_rule_with_the_fiction(anna_ctx):
    result = call(anna_ctx, trigger_date="2026-01-29", rule="einspruch_ao", posted=True, state="NW")
    assert result.ok, result.message
    deadline = result.output["deadline"]
    assert deadline["end"] == "2026-03-02" and deadline["start"] == "2026-02-02"
    assert deadline["explanation"] == (
        "zur Post am Do 29.01.2026 → Bekanntgabe Mo 02.02.2026 (§ 122 Abs. 2 Nr. 1 AO)"
        " → Einspruchsfrist endet Mo 02.03.2026 (§ 355 Abs. 1 AO)"
    )
    assert (
        deadline["rule"]["code"] == "einspruch_ao"
        and deadline["amount"] == 1
        and deadline["unit"] == "months"
    )
    assert result.mutation_event_id is None


def test_tool_computes_a_plain_duration_and_reports_the_shift(anna_ctx):
    result = call(anna_ctx, trigger_date="2026-03-20", amount=2, unit="weeks", state="BY")
    assert result.ok, result.message
    deadline = result.output["deadline"]
    assert deadline["end"] == "2026-04-07" and deadline["shifted_from"] == "2026-04-03"
    assert deadline["shift_reason"] == "Feiertag (Karfreitag)" and deadline["rule"] is None


def test_court_rules_cite_their_own_shift_norm(anna_ctx):
    # Urteil zugestellt Di 03.02.2026 + 2 months → Fr 03.04.2026 Karfreitag, then the weekend and
    # Ostermontag → Di 07.04.2026. Klage FGO: 31.01. + 1 month → Sa 28.02.2026.
    deadline = call(anna_ctx, trigger_date="2026-02-03", rule="berufungsbegruendung_zpo", state="NW").output[
        "deadline"
    ]
    assert deadline["end"] == "2026-04-07"
    assert "§ 222 Abs. 2 ZPO: Feiertag (Karfreitag)" in deadline["explanation"]
    klage = call(anna_ctx, trigger_date="2026-01-31", rule="klage_fgo", state="NW").output["deadline"]
    assert "§ 54 Abs. 2 FGO i. V. m. § 222 Abs. 2 ZPO: Samstag" in klage["explanation"]


@pytest.mark.parametrize(
    "args,code,field",
    [
        ({"trigger_date": "2026-01-29", "rule": "gibt_es_nicht"}, "deadline_rule_not_found", "rule"),
        ({"rule": "einspruch_ao"}, "deadline_trigger_missing", "trigger_date"),
        ({"trigger_date": "2026-01-29", "amount": 0, "unit": "days"}, "deadline_duration_invalid", "amount"),
        (
            {"trigger_date": "2026-01-29", "amount": 11, "unit": "years"},
            "deadline_duration_invalid",
            "amount",
        ),
        (
            {"trigger_date": "2026-01-29", "amount": 121, "unit": "months"},
            "deadline_duration_invalid",
            "amount",
        ),
        ({"trigger_date": "2026-01-29"}, "deadline_duration_invalid", "amount"),
        (
            {"trigger_date": "2026-01-29", "rule": "einspruch_ao", "state": "XY"},
            "deadline_bundesland_unknown",
            "state",
        ),
        ({"trigger_date": "2026-01-29", "rule": "berufung_zpo", "posted": True}, "invalid_input", "posted"),
        (
            {"trigger_date": "2026-01-29", "rule": "einspruch_ao", "amount": 2, "unit": "weeks"},
            "invalid_input",
            "amount",
        ),
    ],
)
def test_tool_refusals_have_stable_codes_and_write_nothing(anna_ctx, args, code, field):
    rules, events = DeadlineRule.objects.count(), MutationEvent.objects.count()
    result = call(anna_ctx, **args)
    assert not result.ok and result.code == code, result
    assert field in result.message
    assert (DeadlineRule.objects.count(), MutationEvent.objects.count()) == (rules, events)


def test_tool_rejects_an_unknown_unit_and_a_bad_date_as_arguments(anna_ctx):
    assert call(anna_ctx, trigger_date="2026-01-29", amount=1, unit="fortnights").code == "invalid_arguments"
    assert call(anna_ctx, trigger_date="29.01.2026", rule="einspruch_ao").code == "invalid_arguments"


def test_an_inactive_rule_is_not_found(anna_ctx):
    DeadlineRule.objects.filter(code="einspruch_ao").update(active=False)
    services.forget_catalog()
    assert call(anna_ctx, trigger_date="2026-01-29", rule="einspruch_ao").code == "deadline_rule_not_found"


def test_a_computation_from_a_rule_costs_no_query_once_the_catalog_is_read(anna_ctx):
    services.rule_for("einspruch_ao")
    with CaptureQueriesContext(connection) as queries:
        services.compute_deadline(trigger_date=dt.date(2026, 1, 29), rule="einspruch_ao", state="NW")
    assert len(queries) == 0


# --- REST ---------------------------------------------------------------------------------------------
def test_rest_compute(api):
    response = api.post(
        "/api/v1/deadlines/compute",
        {"trigger_date": "2026-01-28", "rule": "einspruch_ao", "state": "NW"},
        format="json",
    )
    assert response.status_code == 200, response.content
    deadline = response.json()["deadline"]
    assert deadline["end"] == "2026-03-02" and deadline["shifted_from"] == "2026-02-28"
    assert deadline["steps"][-1] == {
        "label": "Einspruchsfrist endet",
        "day": "2026-03-02",
        "legal_basis": "§ 355 Abs. 1 AO",
        "shifted_from": "2026-02-28",
        "shift_reason": "Samstag",
    }


@pytest.mark.parametrize(
    "body,status,code",
    [
        ({"trigger_date": "2026-01-28", "rule": "nope"}, 404, "deadline_rule_not_found"),
        ({"rule": "einspruch_ao"}, 400, "deadline_trigger_missing"),
        ({"trigger_date": "2026-01-28", "amount": 0, "unit": "days"}, 400, "deadline_duration_invalid"),
        (
            {"trigger_date": "2026-01-28", "rule": "einspruch_ao", "state": "ZZ"},
            400,
            "deadline_bundesland_unknown",
        ),
        ({"trigger_date": "2026-01-28", "amount": "viele", "unit": "days"}, 400, "invalid_request"),
        ({"trigger_date": "gestern", "rule": "einspruch_ao"}, 400, "invalid_request"),
    ],
)
def test_rest_compute_refusals(api, body, status, code):
    response = api.post("/api/v1/deadlines/compute", body, format="json")
    assert response.status_code == status, response.content
    assert response.json()["code"] == code


def test_an_unknown_rule_names_the_known_ones(api):
    body = api.post(
        "/api/v1/deadlines/compute", {"trigger_date": "2026-01-28", "rule": "einspruch"}, format="json"
    ).json()
    assert body["code"] == "deadline_rule_not_found" and "einspruch_ao" in body["message"]
    assert "einspruch_ao" in body["details"]["known_rules"] and body["details"]["field_errors"]["rule"]


def test_rest_rules_list_and_search(api):
    listed = api.get("/api/v1/deadlines/rules").json()
    codes = {r["code"] for r in listed["rules"]}
    assert {
        "einspruch_ao",
        "klage_fgo",
        "berufung_zpo",
        "berufungsbegruendung_zpo",
        "widerspruch_vwgo",
    } <= codes
    assert {"nzb_fgo", "klage_vwgo"} <= codes and listed["total"] == len(codes) >= 10
    found = api.get("/api/v1/deadlines/rules", {"q": "FGO"}).json()
    assert found["rules"] and all("FGO" in r["legal_basis"] for r in found["rules"])
    paged = api.get("/api/v1/deadlines/rules", {"limit": 2, "offset": 2}).json()
    assert len(paged["rules"]) == 2 and paged["has_more"]


def test_rest_rules_list_has_constant_queries(api):
    api.get("/api/v1/deadlines/rules", {"limit": 1})  # the device token's first use is recorded once
    with CaptureQueriesContext(connection) as few:
        api.get("/api/v1/deadlines/rules", {"limit": 2})
    with CaptureQueriesContext(connection) as many:
        api.get("/api/v1/deadlines/rules", {"limit": 50})
    assert len(few) == len(many)


def test_rest_working_day_warning(api):
    sunday = api.get("/api/v1/deadlines/working-day", {"date": "2026-04-05", "state": "NW"}).json()
    assert sunday == {
        "date": "2026-04-05",
        "working_day": False,
        "shifted_to": "2026-04-07",
        "reason": "Sonntag",
        "state": "NW",
        "message": sunday["message"],
    }
    assert "07.04.2026" in sunday["message"]
    plain = api.get("/api/v1/deadlines/working-day", {"date": "2026-04-08", "state": "NW"}).json()
    assert plain["working_day"] and plain["shifted_to"] == "2026-04-08" and plain["message"] == ""
    bad = api.get("/api/v1/deadlines/working-day", {"date": "2026-04-08", "state": "XX"})
    assert bad.status_code == 400 and bad.json()["code"] == "deadline_bundesland_unknown"


def test_the_working_day_warning_reaches_session_pages(web):
    response = web.get("/api/v1/deadlines/working-day", {"date": "2026-06-04"})  # Fronleichnam, office NW
    assert response.status_code == 200 and response.json()["reason"] == "Feiertag (Fronleichnam)"


def test_anonymous_callers_are_refused():
    response = APIClient().post(
        "/api/v1/deadlines/compute", {"trigger_date": "2026-01-28", "rule": "einspruch_ao"}, format="json"
    )
    assert response.status_code in (401, 403)


def test_an_api_key_cannot_use_the_endpoints_but_reaches_the_tool_with_tools_execute():
    admin = UserFactory(role="admin", is_superuser=True)
    _key, plaintext = keys.create_api_key(
        Principal.for_user(admin), name="Robot", scopes=["notifications:read"]
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    refused = client.post(
        "/api/v1/deadlines/compute", {"trigger_date": "2026-01-28", "rule": "einspruch_ao"}, format="json"
    )
    assert refused.status_code == 403 and refused.json()["code"] == "api_key_endpoint_not_allowed"
    _key, tools_key = keys.create_api_key(Principal.for_user(admin), name="Tools", scopes=["tools:execute"])
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {tools_key}")
    run = client.post(
        "/api/v1/tools/execute",
        {
            "tool": "calendar_compute_deadline",
            "arguments": {"trigger_date": "2026-01-28", "rule": "einspruch_ao", "state": "NW"},
        },
        format="json",
    )
    assert run.status_code == 200, run.content
    assert run.json()["output"]["deadline"]["end"] == "2026-03-02"
