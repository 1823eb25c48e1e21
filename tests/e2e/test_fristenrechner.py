"""The Fristenrechner in the Frist editor, in the browser (desktop and phone): a rule and "zur
Post gegeben" fill the Bekanntgabe, the due date and the rule's Vorfrist with the chain shown; a
rule that does not apply says why; a short-notice Frist warns that its Vorfrist is today; the
saved Frist keeps rule, trigger day and Vorfrist. No JavaScript errors (nonce CSP, no inline
handlers)."""

import datetime as dt

import pytest

from apps.calendar import lifecycle
from apps.calendar.models import CalendarEvent
from apps.deadlines import compute
from apps.deadlines.models import DeadlineRule
from tests.e2e.helpers import log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.e2e

RULES = {  # the migration's rows; a transactional test starts from an empty table
    "einspruch_ao": dict(name="Einspruchsfrist", trigger_kind="bekanntgabe", amount=1, unit="months",
                         legal_basis="§ 355 Abs. 1 AO", posting_fiction=True, fiction_basis="§ 122 Abs. 2 Nr. 1 AO",
                         shift_basis="§ 108 Abs. 3 AO", default_pre_deadline_days=7),
    "berufung_zpo": dict(name="Berufungsfrist", trigger_kind="zustellung", amount=1, unit="months",
                         legal_basis="§ 517 ZPO", posting_fiction=False, default_pre_deadline_days=7),
}  # fmt: skip


def _rules():
    for code, values in RULES.items():
        DeadlineRule.objects.update_or_create(code=code, defaults={**values, "active": True})


@pytest.mark.parametrize("viewport", [{"width": 1366, "height": 900}, {"width": 390, "height": 844}])
def test_the_fristenrechner_fills_the_due_date_and_the_vorfrist(server, page, viewport):
    _rules()
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Schmidt")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_viewport_size(viewport)
    log_in(page, server, anna.email)
    page.goto(f"{server}/kalender/neu/?kind=deadline")
    page.wait_for_selector("[data-fristenrechner]")
    assert page.locator("[data-fristenrechner]").is_visible()

    page.fill("[name=title]", "Einspruch ESt-Bescheid 2024")
    page.select_option("[name=rule_code]", "einspruch_ao")
    # Posted a week from today: the Vorfrist is never clamped to today, whatever day the suite runs.
    posted = dt.date.today() + dt.timedelta(days=7)
    expected = compute.compute(posted, 1, "months", posted=True, legal_basis="§ 355 Abs. 1 AO")
    vorfrist = expected.end - dt.timedelta(days=7)  # the rule's 7 days, moved back off a weekend
    while vorfrist.weekday() >= 5:
        vorfrist -= dt.timedelta(days=1)
    page.fill("[name=posted_on]", posted.isoformat())
    page.locator("[name=posted_on]").dispatch_event("change")
    end = page.locator("[data-fr-end]")
    end.wait_for(state="visible")
    assert f"{expected.end:%d.%m.%Y}" in end.inner_text()
    assert page.input_value("[name=start]") == f"{expected.end.isoformat()}T00:00"
    assert page.input_value("[name=trigger_date]") == expected.start.isoformat()  # the Bekanntgabe
    assert page.input_value("[name=pre_deadlines]") == vorfrist.isoformat()
    chain = page.locator("[data-fr-steps] li").all_inner_texts()
    assert len(chain) >= 3 and f"{posted:%d.%m.%Y}" in chain[0]
    assert any(f"{expected.start:%d.%m.%Y}" in step for step in chain)
    assert page.input_value("[name=legal_basis]") == "§ 355 Abs. 1 AO"
    box = page.locator("[data-fristenrechner]").bounding_box()
    assert box["width"] <= viewport["width"]  # no sideways scrolling on the phone

    # a rule that does not apply to a posted letter: the form says why, nothing is filled
    page.select_option("[name=rule_code]", "berufung_zpo")
    refusal = page.locator("[data-fr-error]")
    refusal.wait_for(state="visible")
    assert "Berufungsfrist" in refusal.inner_text() and "Zustellung" in refusal.inner_text()
    assert not page.locator("[data-fr-result]").is_visible()

    page.select_option("[name=rule_code]", "einspruch_ao")
    end.wait_for(state="visible")
    page.click("#event-form button.primary")
    page.wait_for_url("**/kalender/*/")
    frist = CalendarEvent.objects.get()
    assert (frist.rule_code, frist.trigger_date) == ("einspruch_ao", expected.start)
    assert [p.due_date for p in frist.pre_deadlines.all()] == [vorfrist]
    assert lifecycle.due_day(frist) == expected.end and frist.all_day
    assert not errors, errors


def test_a_short_notice_frist_warns_that_its_vorfrist_is_today(server, page):
    _rules()
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Schmidt")
    log_in(page, server, anna.email)
    page.goto(f"{server}/kalender/neu/?kind=deadline")
    page.wait_for_selector("[data-fristenrechner]")
    today = dt.date.today()
    page.fill("[name=duration_amount]", "3")
    page.select_option("[name=duration_unit]", "days")
    page.select_option("[name=rule_code]", "")
    page.fill("[name=trigger_date]", today.isoformat())
    page.locator("[name=trigger_date]").dispatch_event("change")
    page.locator("[data-fr-end]").wait_for(state="visible")
    assert page.input_value("[name=pre_deadlines]") == ""  # a bare duration has no rule lead time
    page.select_option("[name=rule_code]", "berufung_zpo")  # rule and duration: the server refuses both
    page.locator("[data-fr-error]").wait_for(state="visible")
    page.fill("[name=duration_amount]", "")
    page.select_option("[name=duration_unit]", "")
    page.fill("[name=trigger_date]", (today - dt.timedelta(days=29)).isoformat())
    page.locator("[name=trigger_date]").dispatch_event("change")
    warning = page.locator("[data-fr-short-notice]")
    warning.wait_for(state="visible")
    assert "heute" in warning.inner_text()
    assert page.input_value("[name=pre_deadlines]") == today.isoformat()
