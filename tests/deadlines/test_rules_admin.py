"""The rule catalog: shipped rules, admins' edits through the service (admin screens included), the
office's Bundesland setting."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from apps.accounts.principal import Principal
from apps.core.errors import Forbidden, InvalidInput
from apps.core.inputs import build
from apps.core.models import InstanceSetting
from apps.deadlines import office, services
from apps.deadlines.contracts import RuleSave
from apps.deadlines.errors import DeadlineBundeslandUnknown, DeadlineDurationInvalid, DeadlineRuleNotFound
from apps.deadlines.models import DeadlineRule

pytestmark = pytest.mark.django_db

RULE_FORM = {
    "code": "stellungnahme_fa",
    "name": "Stellungnahmefrist (Finanzamt)",
    "trigger_kind": "bekanntgabe",
    "amount": "2",
    "unit": "weeks",
    "legal_basis": "§ 91 Abs. 1 AO",
    "posting_fiction": "on",
    "fiction_basis": "",
    "shift_basis": "",
    "default_pre_deadline_days": "3",
    "default_criticality": "high",
    "active": "on",
}


# The shipped catalog: durations and norms as the statutes state them.
SHIPPED = {
    "einspruch_ao": (1, "months", "§ 355 Abs. 1 AO", True),
    "klage_fgo": (1, "months", "§ 47 Abs. 1 FGO", True),
    "nzb_fgo": (1, "months", "§ 116 Abs. 2 FGO", False),
    "nzb_begruendung_fgo": (2, "months", "§ 116 Abs. 3 FGO", False),
    "revision_fgo": (1, "months", "§ 120 Abs. 1 FGO", False),
    "berufung_zpo": (1, "months", "§ 517 ZPO", False),
    "berufungsbegruendung_zpo": (2, "months", "§ 520 Abs. 2 ZPO", False),
    "einspruch_versaeumnisurteil_zpo": (2, "weeks", "§ 339 Abs. 1 ZPO", False),
    "widerspruch_vwgo": (1, "months", "§ 70 Abs. 1 VwGO", True),
    "klage_vwgo": (1, "months", "§ 74 Abs. 1 VwGO", True),
    "kuendigungsschutzklage": (3, "weeks", "§ 4 Satz 1 KSchG", False),
}


@pytest.mark.parametrize("code", sorted(SHIPPED))
def test_shipped_rule(code):
    rule = services.rule_for(code)
    assert (rule.amount, rule.unit, rule.legal_basis, rule.posting_fiction) == SHIPPED[code]
    assert rule.default_criticality == "critical" and rule.default_pre_deadline_days > 0


def test_rule_choices_for_forms():
    choices = dict(services.rule_choices())
    assert choices["einspruch_ao"] == "Einspruchsfrist (§ 355 Abs. 1 AO)"
    DeadlineRule.objects.filter(code="revision_zpo").update(active=False)
    services.forget_catalog()
    assert "revision_zpo" not in dict(services.rule_choices())
    with pytest.raises(DeadlineRuleNotFound):
        services.rule_for("revision_zpo")


def test_admin_adds_a_rule_in_the_admin_and_it_computes(client, admin_user):
    client.force_login(admin_user)
    response = client.post(reverse("admin:deadlines_deadlinerule_add"), RULE_FORM)
    assert response.status_code == 302, response.content.decode()[:2000]
    rule = services.rule_for("stellungnahme_fa")
    assert (rule.amount, rule.unit, rule.default_criticality) == (2, "weeks", "high")
    result, found, _amount, _unit = services.compute_deadline(
        trigger_date=dt.date(2026, 1, 29), rule="stellungnahme_fa", posted=True, state="NW"
    )
    assert found == rule and result.end.isoformat() == "2026-02-16"  # Bekanntgabe Mo 02.02. + 2 weeks


def test_a_refused_admin_save_shows_the_service_message(client, admin_user):
    client.force_login(admin_user)
    response = client.post(
        reverse("admin:deadlines_deadlinerule_add"), {**RULE_FORM, "amount": "11", "unit": "years"}
    )
    assert response.status_code == 200
    assert "ten years" in response.content.decode() or "zehn Jahre" in response.content.decode()
    assert not DeadlineRule.objects.filter(code="stellungnahme_fa").exists()


def test_admin_edits_a_rule(client, admin_user):
    client.force_login(admin_user)
    rule = DeadlineRule.objects.get(code="einspruch_ao")
    response = client.post(
        reverse("admin:deadlines_deadlinerule_change", args=[rule.pk]),
        {
            **RULE_FORM,
            "code": "einspruch_ao",
            "name": "Einspruchsfrist",
            "amount": "1",
            "unit": "months",
            "legal_basis": "§ 355 AO",
        },
    )
    assert response.status_code == 302
    rule.refresh_from_db()
    assert rule.legal_basis == "§ 355 AO" and rule.default_pre_deadline_days == 3


def test_the_admin_offers_no_delete():
    from django.contrib import admin

    model_admin = admin.site._registry[DeadlineRule]
    assert not callable(getattr(model_admin, "service_delete", None))


def test_staff_cannot_change_rules(as_anna):
    with pytest.raises(Forbidden):
        services.save_rule(as_anna, build(RuleSave, **_service_values()))


def test_duplicate_code_is_a_field_error(admin_user):
    with pytest.raises(InvalidInput) as refused:
        services.save_rule(
            Principal.for_user(admin_user), build(RuleSave, **{**_service_values(), "code": "einspruch_ao"})
        )
    assert refused.value.field_errors.get("code")


def test_service_checks_the_duration(admin_user):
    with pytest.raises(DeadlineDurationInvalid):
        services.save_rule(
            Principal.for_user(admin_user), build(RuleSave, **{**_service_values(), "amount": 0})
        )


def _service_values():
    return {
        "code": "neue_regel",
        "name": "Neue Frist",
        "trigger_kind": "zustellung",
        "amount": 1,
        "unit": "months",
        "legal_basis": "§ 1 Test",
    }


# --- the office's Bundesland -------------------------------------------------------------------------
def test_the_bundesland_setting_ships_as_nw():
    assert InstanceSetting.objects.get(key=office.SETTING_KEY).value == "NW"
    assert office.office_state() == "NW"


def test_admin_sets_the_bundesland_in_the_settings_admin(client, admin_user):
    client.force_login(admin_user)
    setting = InstanceSetting.objects.get(key=office.SETTING_KEY)
    url = reverse("admin:core_instancesetting_change", args=[setting.pk])
    refused = client.post(url, {"key": office.SETTING_KEY, "value": '"Bavaria"'})
    assert refused.status_code == 200 and "Bavaria" in refused.content.decode()
    setting.refresh_from_db()
    assert setting.value == "NW"
    saved = client.post(url, {"key": office.SETTING_KEY, "value": '"by"'})
    assert saved.status_code == 302
    setting.refresh_from_db()
    assert setting.value == "BY" and office.office_state() == "BY"


def test_set_office_state_service(admin_user, as_anna):
    assert services.set_office_state(Principal.for_user(admin_user), "sn") == "SN"
    assert office.office_state() == "SN"
    with pytest.raises(DeadlineBundeslandUnknown):
        services.set_office_state(Principal.for_user(admin_user), "Sachsen")
    with pytest.raises(Forbidden):
        services.set_office_state(as_anna, "BY")


def test_a_broken_stored_value_falls_back_to_nw():
    InstanceSetting.objects.filter(key=office.SETTING_KEY).update(value={"oops": 1})
    assert office.office_state() == "NW"
