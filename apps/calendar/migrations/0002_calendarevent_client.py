"""Calendar entries link a real Mandant (clients.Client) instead of the free-text `client_name`.

Existing text is matched to a client by its exact name (case and surrounding blanks ignored).
Text that matches no client, or more than one, is kept at the end of the entry's description,
so nothing is lost. The full-text column is rebuilt without `client_name` (PostgreSQL cannot
change a generated column's expression in place)."""

import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.deletion
from django.db import migrations, models

FALLBACK_PREFIX = "Mandant: "


def link_clients(apps, schema_editor):
    CalendarEvent = apps.get_model("office_calendar", "CalendarEvent")
    Client = apps.get_model("clients", "Client")
    by_name: dict[str, list[int]] = {}
    for pk, name in Client.objects.values_list("id", "name"):
        by_name.setdefault(name.strip().casefold(), []).append(pk)
    for event in CalendarEvent.objects.exclude(client_name="").only("id", "client_name", "description"):
        text = event.client_name.strip()
        matches = by_name.get(text.casefold(), [])
        if len(matches) == 1:
            CalendarEvent.objects.filter(pk=event.pk).update(client_id=matches[0])
        elif text:
            note = f"{FALLBACK_PREFIX}{text}"
            description = f"{event.description.rstrip()}\n\n{note}" if event.description.strip() else note
            CalendarEvent.objects.filter(pk=event.pk).update(description=description)


def unlink_clients(apps, schema_editor):
    CalendarEvent = apps.get_model("office_calendar", "CalendarEvent")
    for event in CalendarEvent.objects.filter(client__isnull=False).select_related("client"):
        CalendarEvent.objects.filter(pk=event.pk).update(client_name=event.client.name[:200])


class Migration(migrations.Migration):
    dependencies = [
        ("clients", "0001_initial"),
        ("office_calendar", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="calendarevent",
            name="client",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="calendar_events",
                to="clients.client",
                verbose_name="client",
            ),
        ),
        migrations.RunPython(link_clients, unlink_clients),
        migrations.RemoveIndex(model_name="calendarevent", name="cal_event_search"),
        migrations.RemoveField(model_name="calendarevent", name="search"),
        migrations.RemoveField(model_name="calendarevent", name="client_name"),
        migrations.AddField(
            model_name="calendarevent",
            name="search",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.contrib.postgres.search.SearchVector(
                    "title", "description", "location", config="german"
                ),
                output_field=django.contrib.postgres.search.SearchVectorField(),
            ),
        ),
        migrations.AddIndex(
            model_name="calendarevent",
            index=django.contrib.postgres.indexes.GinIndex(fields=["search"], name="cal_event_search"),
        ),
        migrations.AddIndex(
            model_name="calendarevent",
            index=models.Index(fields=["client", "start"], name="cal_event_client_start"),
        ),
    ]
