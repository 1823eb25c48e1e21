"""The month page's phone agenda (issue 27, item 10): the same response carries the grid (capped
chips, "+N more") and, for screens under 600 px, every entry of the month's days as a list."""

import datetime as dt
import re

from django.urls import reverse

from apps.calendar.views import CHIPS_PER_DAY


def _agenda(body: str) -> str:
    start = body.index('<div class="cal-month-agenda"')
    return body[start : body.index("</div>", start)]


def test_the_agenda_lists_every_entry_of_a_day_the_grid_caps(web, make_event, soon):
    titles = [f"Besprechung Nummer {i}" for i in range(CHIPS_PER_DAY + 2)]
    for i, title in enumerate(titles):
        make_event(title, start=soon + dt.timedelta(minutes=i))
    make_event("Einspruchsfrist Umsatzsteuerbescheid", start=soon, kind="deadline", minutes=0)
    body = web.get(reverse("calendar:index"), {"month": soon.strftime("%Y-%m")}).content.decode()

    grid = body[: body.index('<div class="cal-month-agenda"')]
    assert grid.count('class="cal-chip') == CHIPS_PER_DAY
    assert "+3" in grid  # seven entries, four chips: "+3 more" to the week view

    agenda = _agenda(body)
    day = re.search(rf'<section class="cal-agenda-day[^"]*" data-date="{soon.date().isoformat()}">', agenda)
    assert day is not None
    for title in [*titles, "Einspruchsfrist Umsatzsteuerbescheid"]:
        assert f">{title}</a>" in agenda  # whole titles, each once
    assert agenda.count("data-record-id=") == len(titles) + 1
    assert "10:00" in agenda and "Frist" in agenda


def test_the_agenda_shows_only_the_months_days_with_entries(web, make_event, soon):
    first = soon.date().replace(day=1)
    before = dt.datetime.combine(first - dt.timedelta(days=1), dt.time(9), tzinfo=soon.tzinfo)
    make_event("Vormonat-Termin", start=before)  # in the grid's first row, not in this month
    body = web.get(reverse("calendar:index"), {"month": soon.strftime("%Y-%m")}).content.decode()
    agenda = _agenda(body)
    assert "Vormonat-Termin" not in agenda and "Keine Einträge in diesem Monat." in agenda
    assert "Vormonat-Termin" in body or first.weekday() == 0  # the grid still shows that day

    make_event("Diesen Monat", start=soon)
    agenda = _agenda(web.get(reverse("calendar:index"), {"month": soon.strftime("%Y-%m")}).content.decode())
    assert agenda.count("<section") == 1 and "Diesen Monat" in agenda


def test_the_deadline_list_prefills_how_so_one_tap_completes(web, anna, make_event, soon):
    frist = make_event("Klagefrist Schulze", start=soon, kind="deadline", minutes=0, responsible=anna)
    body = web.get(reverse("calendar:deadlines")).content.decode()
    form = body[body.index(reverse("calendar:deadline-complete", args=[frist.pk])) :]
    how = re.search(r'<input type="text" name="how"[^>]*>', form).group(0)
    assert 'value="In der Fristenliste als erledigt markiert"' in how and "required" in how

    # Posting that form as it is (the one tap) completes the Frist through the usual path.
    response = web.post(
        reverse("calendar:deadline-complete", args=[frist.pk]),
        {"how": "In der Fristenliste als erledigt markiert", "link": ""},
    )
    assert response.status_code == 302
    frist.refresh_from_db()
    assert frist.status == "done" and frist.done_how == "In der Fristenliste als erledigt markiert"
    # An emptied field is still refused, as on the Frist's page: nothing is written.
    other = make_event("Einspruchsfrist Meier", start=soon, kind="deadline", minutes=0)
    web.post(reverse("calendar:deadline-complete", args=[other.pk]), {"how": "  ", "link": ""})
    other.refresh_from_db()
    assert other.status == "open" and other.done_at is None
