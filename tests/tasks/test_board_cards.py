"""The board's cards: initials from first and last name in one place, the counters' hidden rest
(`data-unrendered`), the keyboard hint the cards point to, and long words that may wrap."""

import re

import pytest
from django.template import Context, Template
from django.urls import reverse

from apps.core.templatetags.people import initials, initials_of
from apps.tasks import views
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("full_name", "email", "expected"),
    [
        ("Anna Schmidt", "a@x.example", "AS"),
        ("Anna Maria von Berg", "a@x.example", "AB"),
        ("  Ben  ", "ben@x.example", "B"),
        ("", "clara.weiss@x.example", "CW"),
        ("", "dora@x.example", "D"),
        ("", "", "?"),
        ("Özlem Ünal", "", "ÖÜ"),
    ],
)
def test_initials_of(full_name, email, expected):
    assert initials_of(full_name, email) == expected


def test_initials_filter_reads_first_and_last_name_before_full_name():
    class Person:
        first_name, last_name, email = "Maria", "Hoffmann", "m@x.example"

    assert initials(Person()) == "MH"
    assert initials(None) == ""
    user = UserFactory(full_name="Jonas Becker", email="jb@x.example")
    assert Template("{% load people %}{{ u|initials }}").render(Context({"u": user})) == "JB"


def test_card_shows_initials_and_wraps_long_words(web, make_task, anna):
    anna.full_name = "Anna Schmidt"
    anna.save()
    make_task("Umsatzsteuervoranmeldungsberichtigungsantrag", assignee=anna)
    body = web.get(reverse("tasks:board")).content.decode()
    assert '<html lang="de">' in body
    assert re.search(r'<span class="avatar"[^>]*>AS</span>', body)
    assert 'aria-describedby="board-keys"' in body and 'id="board-keys"' in body
    assert 'id="board-status" role="status" aria-live="polite"' in body
    assert "Tastatur: Karte mit Tab fokussieren, Alt+←/→" in body  # the app catalog has the hint


def test_counters_know_the_cards_not_rendered(web, make_task, statuses, monkeypatch):
    monkeypatch.setattr(views, "CARDS_PER_COLUMN", 3)
    for i in range(5):
        make_task(f"offen {i}")
    make_task("in Arbeit", status="in_arbeit")
    body = web.get(reverse("tasks:board")).content.decode()
    offen, doing = statuses["offen"].pk, statuses["in_arbeit"].pk
    assert f'data-status-id="{offen}" data-unrendered="2"' in body
    assert f'data-status-id="{doing}" data-unrendered="0"' in body
    assert body.count('class="task-card') == 4


def test_board_query_count_stays_constant_with_assignees(web, make_task, django_assert_max_num_queries):
    people = [UserFactory(full_name=f"Person {i} Nachname") for i in range(6)]
    make_task("erste", assignee=people[0])
    web.get(reverse("tasks:board"))
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        web.get(reverse("tasks:board"))
    for i, person in enumerate(people * 3):
        make_task(f"Aufgabe {i}", assignee=person)
    with django_assert_max_num_queries(len(few)):
        web.get(reverse("tasks:board"))
