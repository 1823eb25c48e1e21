"""The demo office's "Offene Fristen" widget held a stored copy of figures (3 / 1 / 7) that never
updated and could not be clicked; the dashboard's "Heute" now counts the Fristen live. Only that
exact demo copy is removed: a widget a person built keeps its data."""

from django.db import migrations

STALE_DATA = {"woche": 3, "kritisch": 1, "offen": 7}


def remove_stale_widget(apps, schema_editor):
    Widget = apps.get_model("widgets", "Widget")
    for widget in Widget.objects.filter(title="Offene Fristen", type="stats"):
        if widget.data == STALE_DATA:
            widget.delete()


class Migration(migrations.Migration):
    dependencies = [("widgets", "0001_initial")]

    operations = [migrations.RunPython(remove_stale_widget, migrations.RunPython.noop)]
