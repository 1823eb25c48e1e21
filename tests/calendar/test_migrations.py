"""0002: the free-text `client_name` becomes a link to the Mandant with that name; text that names
no client (or several) is kept in the description, so nothing is lost."""

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("office_calendar", "0001_initial")]
AFTER = [("office_calendar", "0002_calendarevent_client")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state([*targets, ("clients", "0001_initial")]).apps


@pytest.mark.django_db(transaction=True)
def test_client_names_become_links_and_unmatched_text_is_kept():
    try:
        old = _migrate(BEFORE)
        Client = old.get_model("clients", "Client")
        Event = old.get_model("office_calendar", "CalendarEvent")
        meier = Client.objects.create(name="Meier GmbH", client_number="10003")
        Client.objects.create(name="Weber", client_number="1")
        Client.objects.create(name="Weber", client_number="2")
        start = dt.datetime(2026, 12, 1, 9, tzinfo=dt.UTC)
        rows = {
            "linked": Event.objects.create(title="a", start=start, end=start, client_name=" meier gmbh "),
            "unknown": Event.objects.create(
                title="b", start=start, end=start, client_name="Café Lindner", description="Erstgespräch"
            ),
            "ambiguous": Event.objects.create(title="c", start=start, end=start, client_name="Weber"),
            "none": Event.objects.create(title="d", start=start, end=start),
        }
        new = _migrate(AFTER)
        Event = new.get_model("office_calendar", "CalendarEvent")
        got = {key: Event.objects.get(pk=row.pk) for key, row in rows.items()}
        assert got["linked"].client_id == meier.pk and got["linked"].description == ""
        assert got["unknown"].client_id is None
        assert got["unknown"].description == "Erstgespräch\n\nMandant: Café Lindner"
        assert got["ambiguous"].client_id is None and got["ambiguous"].description == "Mandant: Weber"
        assert got["none"].client_id is None and got["none"].description == ""
        # the rebuilt full-text column still finds the kept text
        from django.contrib.postgres.search import SearchQuery

        found = Event.objects.filter(search=SearchQuery("lindn:*", search_type="raw", config="german"))
        assert list(found.values_list("pk", flat=True)) == [rows["unknown"].pk]
    finally:
        executor = MigrationExecutor(connection)
        leaf = [node for node in executor.loader.graph.leaf_nodes() if node[0] == "office_calendar"]
        executor.migrate(leaf)
