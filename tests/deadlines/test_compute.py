"""apps.deadlines.compute against cases worked out by hand from the statutes.

Each row: the event (or posting) day, the duration, the Land, and the end the statutes give:
§ 187 Abs. 1 BGB (the event day is not counted), § 188 Abs. 2 BGB (weeks: the same weekday;
months/years: the same day number), § 188 Abs. 3 BGB (no such day: the month's last day),
§ 193 BGB / § 108 Abs. 3 AO / § 222 Abs. 2 ZPO (Saturday, Sunday, public holiday → next working
day), § 122 Abs. 2 Nr. 1 AO / § 41 Abs. 2 VwVfG (posted: the 4th day after posting from 2025,
the 3rd before, itself moved off weekends and holidays). Weekdays and holiday dates were read
from a calendar (Easter 2025: 20 April, 2026: 5 April; Buß- und Bettag 2025: 19 November).
"""

from __future__ import annotations

import datetime as dt
import time

import pytest

from apps.deadlines import compute as c
from apps.deadlines.errors import DeadlineBundeslandUnknown, DeadlineDurationInvalid, DeadlineTriggerMissing

D = dt.date.fromisoformat
AO = "§ 355 Abs. 1 AO"
ZPO = "§ 339 Abs. 1 ZPO"

# id, trigger, amount, unit, posted, Land, legal basis, expected end, expected unshifted end (None: no shift), why
CASES = [
    # --- § 188 Abs. 2, 3 BGB: month ends, leap years, year boundaries --------------------------
    ("31jan_to_28feb_sat", "2026-01-31", 1, "months", False, "NW", AO, "2026-03-02", "2026-02-28", "Samstag"),
    ("31jan_leap_29feb", "2028-01-31", 1, "months", False, "NW", AO, "2028-02-29", None, None),
    ("30jan_leap_29feb", "2028-01-30", 1, "months", False, "NW", AO, "2028-02-29", None, None),
    ("31jan_2025_28feb_fri", "2025-01-31", 1, "months", False, "NW", AO, "2025-02-28", None, None),
    ("29feb_plus_year", "2024-02-29", 1, "years", False, "NW", AO, "2025-02-28", None, None),
    ("29feb_2028_plus_year", "2028-02-29", 1, "years", False, "NW", AO, "2029-02-28", None, None),
    ("28feb_same_number_not_month_end", "2025-02-28", 1, "months", False, "NW", AO, "2025-03-28", None, None),
    ("31mar_to_30apr", "2026-03-31", 1, "months", False, "NW", AO, "2026-04-30", None, None),
    ("31may_to_30jun", "2026-05-31", 1, "months", False, "NW", AO, "2026-06-30", None, None),
    (
        "30nov_3m_28feb_sun_year",
        "2026-11-30",
        3,
        "months",
        False,
        "NW",
        AO,
        "2027-03-01",
        "2027-02-28",
        "Sonntag",
    ),
    ("year_boundary", "2025-12-15", 1, "months", False, "NW", AO, "2026-01-15", None, None),
    ("year_plain", "2026-06-15", 1, "years", False, "NW", AO, "2027-06-15", None, None),
    # --- § 187 Abs. 1 BGB: days and weeks ----------------------------------------------------------
    ("one_day", "2026-02-02", 1, "days", False, "NW", ZPO, "2026-02-03", None, None),
    ("days_over_leap_day", "2028-02-15", 14, "days", False, "NW", ZPO, "2028-02-29", None, None),
    ("heiligabend_is_working_day", "2025-12-10", 14, "days", False, "NW", ZPO, "2025-12-24", None, None),
    ("two_weeks_same_weekday", "2026-01-07", 2, "weeks", False, "NW", ZPO, "2026-01-21", None, None),
    (
        "three_weeks_kschg",
        "2026-04-09",
        3,
        "weeks",
        False,
        "NW",
        "§ 4 Satz 1 KSchG",
        "2026-04-30",
        None,
        None,
    ),
    # --- § 193 BGB etc.: nationwide holidays ---------------------------------------------------------
    (
        "neujahr_fri_then_weekend",
        "2026-12-01",
        1,
        "months",
        False,
        "NW",
        AO,
        "2027-01-04",
        "2027-01-01",
        "Neujahr",
    ),
    (
        "weihnachten_both_days_weekend",
        "2025-12-11",
        14,
        "days",
        False,
        "NW",
        ZPO,
        "2025-12-29",
        "2025-12-25",
        "Weihnacht",
    ),
    (
        "karfreitag_to_tuesday",
        "2026-03-20",
        2,
        "weeks",
        False,
        "NW",
        ZPO,
        "2026-04-07",
        "2026-04-03",
        "Karfreitag",
    ),
    (
        "ostermontag_2025",
        "2025-03-21",
        1,
        "months",
        False,
        "NW",
        AO,
        "2025-04-22",
        "2025-04-21",
        "Ostermontag",
    ),
    (
        "erster_mai_fri",
        "2026-04-10",
        3,
        "weeks",
        False,
        "NW",
        "§ 4 Satz 1 KSchG",
        "2026-05-04",
        "2026-05-01",
        "Mai",
    ),
    ("himmelfahrt", "2026-04-14", 1, "months", False, "NW", AO, "2026-05-15", "2026-05-14", "Himmelfahrt"),
    (
        "pfingstmontag",
        "2026-04-25",
        1,
        "months",
        False,
        "HH",
        AO,
        "2026-05-26",
        "2026-05-25",
        "Pfingstmontag",
    ),
    ("einheit_fri", "2025-09-03", 1, "months", False, "BE", AO, "2025-10-06", "2025-10-03", "Einheit"),
    # --- regional holidays ----------------------------------------------------------------------------
    (
        "fronleichnam_nw",
        "2026-05-04",
        1,
        "months",
        False,
        "NW",
        AO,
        "2026-06-05",
        "2026-06-04",
        "Fronleichnam",
    ),
    (
        "fronleichnam_by",
        "2026-05-04",
        1,
        "months",
        False,
        "BY",
        AO,
        "2026-06-05",
        "2026-06-04",
        "Fronleichnam",
    ),
    ("fronleichnam_not_be", "2026-05-04", 1, "months", False, "BE", AO, "2026-06-04", None, None),
    ("fronleichnam_not_hh", "2026-05-04", 1, "months", False, "HH", AO, "2026-06-04", None, None),
    (
        "reformationstag_hh",
        "2025-10-17",
        14,
        "days",
        False,
        "HH",
        ZPO,
        "2025-11-03",
        "2025-10-31",
        "Reformation",
    ),
    (
        "reformationstag_ni",
        "2025-10-17",
        14,
        "days",
        False,
        "NI",
        ZPO,
        "2025-11-03",
        "2025-10-31",
        "Reformation",
    ),
    ("reformationstag_not_nw", "2025-10-17", 14, "days", False, "NW", ZPO, "2025-10-31", None, None),
    (
        "allerheiligen_nw",
        "2027-10-01",
        1,
        "months",
        False,
        "NW",
        AO,
        "2027-11-02",
        "2027-11-01",
        "Allerheiligen",
    ),
    ("allerheiligen_not_he", "2027-10-01", 1, "months", False, "HE", AO, "2027-11-01", None, None),
    ("buss_und_bettag_sn", "2025-10-19", 1, "months", False, "SN", AO, "2025-11-20", "2025-11-19", "Buß"),
    ("buss_und_bettag_not_by", "2025-10-19", 1, "months", False, "BY", AO, "2025-11-19", None, None),
    ("frauentag_be", "2027-02-08", 1, "months", False, "BE", AO, "2027-03-09", "2027-03-08", "Frauentag"),
    ("frauentag_not_bb", "2027-02-08", 1, "months", False, "BB", AO, "2027-03-08", None, None),
    ("drei_koenige_by", "2025-12-06", 1, "months", False, "BY", AO, "2026-01-07", "2026-01-06", "Drei"),
    ("drei_koenige_not_nw", "2025-12-06", 1, "months", False, "NW", AO, "2026-01-06", None, None),
    ("weltkindertag_th", "2027-08-20", 1, "months", False, "TH", AO, "2027-09-21", "2027-09-20", "kindertag"),
    # --- posting fiction: 4th day since 2025 -------------------------------------------------------------
    ("fiction_issue_example", "2026-01-29", 1, "months", True, "NW", AO, "2026-03-02", None, None),
    ("fiction_on_sunday", "2026-01-28", 1, "months", True, "NW", AO, "2026-03-02", None, None),
    ("fiction_over_easter", "2026-03-30", 1, "months", True, "NW", AO, "2026-05-07", None, None),
    ("fiction_year_boundary", "2025-12-29", 1, "months", True, "NW", AO, "2026-02-02", None, None),
    ("fiction_pfingstmontag", "2026-05-21", 1, "months", True, "NW", AO, "2026-06-26", None, None),
    ("fiction_drei_koenige_by", "2025-01-02", 1, "months", True, "BY", AO, "2025-02-07", None, None),
    ("fiction_drei_koenige_not_nw", "2025-01-02", 1, "months", True, "NW", AO, "2025-02-06", None, None),
    (
        "fiction_vwvfg_widerspruch",
        "2026-11-20",
        1,
        "months",
        True,
        "NW",
        "§ 70 Abs. 1 VwGO",
        "2026-12-24",
        None,
        None,
    ),
    # --- before 2025: the 3rd day ---------------------------------------------------------------------------
    ("fiction_2024_third_day", "2024-12-27", 1, "months", True, "NW", AO, "2025-01-30", None, None),
    ("fiction_2024_new_year_eve", "2024-12-31", 1, "months", True, "NW", AO, "2025-02-03", None, None),
    ("fiction_2024_on_saturday", "2024-10-02", 1, "months", True, "NW", AO, "2024-11-07", None, None),
]

# The Bekanntgabe the fiction gives (posting day + 4 or 3, moved off weekends and holidays).
FICTION_START = {
    "fiction_issue_example": ("2026-02-02", None),
    "fiction_on_sunday": ("2026-02-02", "2026-02-01"),
    "fiction_over_easter": ("2026-04-07", "2026-04-03"),
    "fiction_year_boundary": ("2026-01-02", None),
    "fiction_pfingstmontag": ("2026-05-26", "2026-05-25"),
    "fiction_drei_koenige_by": ("2025-01-07", "2025-01-06"),
    "fiction_drei_koenige_not_nw": ("2025-01-06", None),
    "fiction_vwvfg_widerspruch": ("2026-11-24", None),
    "fiction_2024_third_day": ("2024-12-30", None),
    "fiction_2024_new_year_eve": ("2025-01-03", None),
    "fiction_2024_on_saturday": ("2024-10-07", "2024-10-05"),
}


def test_the_table_has_at_least_thirty_cases():
    assert len(CASES) >= 30 and len({row[0] for row in CASES}) == len(CASES)


@pytest.mark.parametrize(
    "trigger,amount,unit,posted,state,basis,end,unshifted,why",
    [row[1:] for row in CASES],
    ids=[row[0] for row in CASES],
)
def test_case(trigger, amount, unit, posted, state, basis, end, unshifted, why):
    result = c.compute(D(trigger), amount, unit, posted=posted, state=state, legal_basis=basis)
    assert result.end == D(end), result.explanation
    assert result.state == state
    if unshifted is None:
        assert result.shifted_from is None and result.shift_reason is None
        assert result.unshifted_end == result.end
    else:
        assert result.shifted_from == D(unshifted) == result.unshifted_end
        assert why in result.shift_reason
    assert result.steps[-1].day == result.end and result.steps[0].day == D(trigger)


@pytest.mark.parametrize("case_id", sorted(FICTION_START))
def test_fiction_start(case_id):
    _id, trigger, amount, unit, _posted, state, basis, *_rest = next(r for r in CASES if r[0] == case_id)
    start, moved_from = FICTION_START[case_id]
    result = c.compute(D(trigger), amount, unit, posted=True, state=state, legal_basis=basis)
    assert result.start == D(start)
    step = result.steps[1]
    assert step.day == D(start) and step.shifted_from == (D(moved_from) if moved_from else None)
    assert ("VwVfG" if "VwGO" in basis else "§ 122 Abs. 2 Nr. 1 AO") in step.legal_basis


def test_explanation_of_the_issue_example():
    result = c.compute(
        D("2026-01-29"), 1, "months", posted=True, state="NW", name="Einspruchsfrist", legal_basis="§ 355 AO"
    )
    assert result.explanation == (
        "zur Post am Do 29.01.2026 → Bekanntgabe Mo 02.02.2026 (§ 122 Abs. 2 Nr. 1 AO)"
        " → Einspruchsfrist endet Mo 02.03.2026 (§ 355 AO)"
    )
    assert result.legal_basis == "§ 355 AO"


def test_explanation_names_the_shift_and_its_norm():
    result = c.compute(
        D("2026-01-28"), 1, "months", state="NW", name="Einspruchsfrist", legal_basis="§ 355 AO"
    )
    assert result.explanation == (
        "Bekanntgabe Mi 28.01.2026 → Einspruchsfrist endet Mo 02.03.2026"
        " (§ 355 AO; Sa 28.02. → Mo 02.03., § 108 Abs. 3 AO: Samstag)"
    )
    assert result.legal_basis == "§ 355 AO; § 108 Abs. 3 AO"


def test_fiction_shift_is_explained_with_its_norm():
    result = c.compute(
        D("2026-01-28"), 1, "months", posted=True, state="NW", name="Einspruchsfrist", legal_basis="§ 355 AO"
    )
    assert (
        "Bekanntgabe Mo 02.02.2026 (So 01.02. → Mo 02.02.: Sonntag; § 122 Abs. 2 Nr. 1 AO, § 108 Abs. 3 AO)"
        in (result.explanation)
    )


@pytest.mark.parametrize(
    "basis,norm",
    [
        ("§ 355 Abs. 1 AO", "§ 108 Abs. 3 AO"),
        ("§ 517 ZPO", "§ 222 Abs. 2 ZPO"),
        ("§ 74 Abs. 1 VwGO", "§ 222 Abs. 2 ZPO"),
        ("§ 4 Satz 1 KSchG", "§ 193 BGB"),
        ("", "§ 193 BGB"),
    ],
)
def test_the_shift_cites_the_procedure_norm(basis, norm):
    result = c.compute(D("2026-01-31"), 1, "months", state="NW", legal_basis=basis)  # 28.02. is a Saturday
    assert f"{norm}: Samstag" in result.explanation


def test_an_explicit_shift_norm_wins():
    result = c.compute(
        D("2026-01-31"), 1, "months", state="NW", legal_basis="§ 47 FGO", shift_basis="§ 54 Abs. 2 FGO"
    )
    assert "§ 54 Abs. 2 FGO: Samstag" in result.explanation


def test_a_plain_duration_names_itself():
    result = c.compute(D("2026-02-02"), 2, "weeks", state="NW")
    assert result.explanation == "Bekanntgabe Mo 02.02.2026 → Frist (2 Wochen) endet Mo 16.02.2026"


def test_zustellung_and_verkuendung_label_the_event():
    assert c.compute(
        D("2026-02-02"), 1, "months", trigger_kind="zustellung", state="NW"
    ).explanation.startswith("Zustellung Mo 02.02.2026")
    assert (
        c.compute(D("2026-02-02"), 1, "months", trigger_kind="verkuendung", state="NW").steps[0].label
        == "Verkündung"
    )


# --- the helpers the calendar forms use ------------------------------------------------------------
def test_shift_to_working_day():
    assert c.shift_to_working_day(D("2026-04-03"), "NW") == (
        D("2026-04-07"),
        D("2026-04-03"),
        "Feiertag (Karfreitag)",
    )
    assert c.shift_to_working_day(D("2026-04-08"), "NW") == (D("2026-04-08"), D("2026-04-08"), None)
    assert c.shift_to_working_day(D("2026-02-28"), "BY") == (D("2026-03-02"), D("2026-02-28"), "Samstag")


def test_is_working_day():
    assert c.is_working_day(D("2026-06-04"), "BE") and not c.is_working_day(D("2026-06-04"), "NW")
    assert not c.is_working_day(D("2026-03-01"), "BE")  # a Sunday
    assert c.is_working_day(D("2026-12-24"), "NW")  # Heiligabend is no public holiday


@pytest.mark.django_db
def test_no_land_means_the_office_setting():
    from apps.core.services import set_setting
    from apps.deadlines import office

    set_setting(office.SETTING_KEY, "BE")
    office.forget()
    assert c.is_working_day(D("2026-06-04"))  # Fronleichnam is no holiday in Berlin
    set_setting(office.SETTING_KEY, "NW")
    office.forget()
    assert not c.is_working_day(D("2026-06-04"))
    assert c.compute(D("2026-05-04"), 1, "months").state == "NW"


# --- refusals ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "amount,unit",
    [
        (0, "months"),
        (-1, "days"),
        (121, "months"),
        (11, "years"),
        (3654, "days"),
        (523, "weeks"),
        (1, "fortnights"),
        (None, "days"),
        (True, "days"),
    ],
)
def test_bad_durations(amount, unit):
    with pytest.raises(DeadlineDurationInvalid) as refused:
        c.compute(D("2026-01-01"), amount, unit, state="NW")
    assert refused.value.code == "deadline_duration_invalid"


def test_ten_years_is_allowed():
    assert c.compute(D("2026-01-15"), 10, "years", state="NW").end == D("2036-01-15")
    assert c.compute(D("2026-01-15"), 120, "months", state="NW").end == D("2036-01-15")


def test_missing_trigger():
    with pytest.raises(DeadlineTriggerMissing) as refused:
        c.compute(None, 1, "months", state="NW")
    assert refused.value.field_errors == {"trigger_date": refused.value.field_errors["trigger_date"]}


@pytest.mark.parametrize("state", ["XX", "Augsburg", "bayern", "N W"])
def test_unknown_land(state):
    with pytest.raises(DeadlineBundeslandUnknown):
        c.compute(D("2026-01-01"), 1, "months", state=state)


def test_lower_case_land_code_is_accepted():
    assert c.compute(D("2026-05-04"), 1, "months", state="by").state == "BY"


# --- speed --------------------------------------------------------------------------------------------------
def test_a_computation_takes_well_under_a_millisecond():
    c.compute(D("2026-01-29"), 1, "months", posted=True, state="BY", legal_basis=AO)  # fill the holiday cache
    started = time.perf_counter()
    for _ in range(1000):
        c.compute(D("2026-01-29"), 1, "months", posted=True, state="BY", legal_basis=AO)
    assert (time.perf_counter() - started) / 1000 < 0.001
