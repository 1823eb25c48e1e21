"""The week view's hour grid: quarter-hour rows, lanes for overlapping entries, all-day entries
and Fristen above the grid, early or late entries widen it, entries crossing midnight split."""

import datetime as dt
import re

import pytest
from django.urls import reverse

from tests.calendar.conftest import BERLIN

pytestmark = pytest.mark.django_db

MONDAY = dt.date(2026, 12, 7)


def at(day_offset: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(MONDAY + dt.timedelta(days=day_offset), dt.time(hour, minute), tzinfo=BERLIN)


def week(web):
    response = web.get(reverse("calendar:week"), {"week": MONDAY.isoformat()})
    assert response.status_code == 200
    return response.context, response.content.decode()


def test_rows_lanes_and_the_all_day_row(web, make_event):
    make_event("Neun", start=at(0, 9), minutes=60)
    make_event("Halb zehn", start=at(0, 9, 30), minutes=90)
    make_event("Elf", start=at(0, 11), minutes=30)
    make_event("Frist", start=at(1, 12), minutes=0, kind="deadline")
    make_event("Ganztags", start=at(2, 0), minutes=24 * 60, all_day=True)
    context, body = week(web)
    grid, days = context["grid"], context["days"]
    assert grid["hours"] == list(range(7, 19)) and grid["slots"] == 48
    monday = {item["event"].title: item for item in days[0]["timed"]}
    assert (monday["Neun"]["row_start"], monday["Neun"]["row_end"], monday["Neun"]["lane"]) == (9, 13, 1)
    assert (
        monday["Halb zehn"]["row_start"],
        monday["Halb zehn"]["row_end"],
        monday["Halb zehn"]["lane"],
    ) == (11, 17, 2)
    assert monday["Elf"]["lane"] == 1 and days[0]["lanes"] == 2  # lane 1 is free again at 11:00
    assert [i["event"].title for i in days[1]["all_day"]] == ["Frist"] and not days[1]["timed"]
    assert [i["event"].title for i in days[2]["all_day"]] == ["Ganztags"]
    assert 'style="grid-row: 9 / 13; grid-column: 1"' in body
    assert len(re.findall(r'class="cal-day cal-timeline', body)) == 7


def test_early_late_and_overnight_entries_widen_and_split(web, make_event):
    make_event("Früh", start=at(3, 5, 45), minutes=30)
    make_event("Nacht", start=at(4, 22), minutes=4 * 60)  # Friday 22:00 to Saturday 02:00
    context, _body = week(web)
    grid, days = context["grid"], context["days"]
    assert grid["hours"][0] == 0 and grid["hours"][-1] == 23  # the night reaches both ends
    friday = days[4]["timed"][0]
    saturday = days[5]["timed"][0]
    assert (friday["from_minute"], friday["to_minute"]) == (22 * 60, 24 * 60)
    assert (saturday["from_minute"], saturday["to_minute"]) == (0, 2 * 60)
    early = days[3]["timed"][0]
    assert early["row_start"] == 5 * 4 + 3 + 1  # 05:45 in a grid from 00:00


def test_week_grid_query_count_is_constant(web, make_event, django_assert_max_num_queries):
    make_event("eins", start=at(0, 9))
    week(web)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        week(web)
    for i in range(40):
        make_event(f"viele {i}", start=at(i % 7, 8 + i % 10, 15 * (i % 4)))
    with django_assert_max_num_queries(len(few)):
        week(web)
