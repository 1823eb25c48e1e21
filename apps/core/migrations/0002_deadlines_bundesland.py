"""The office's Bundesland (public holidays that end deadlines, `apps.deadlines`), visible and
editable in the instance settings admin from the start; "NW" until an admin sets the office's."""

from django.db import migrations

KEY = "deadlines.bundesland"


def add_setting(apps, schema_editor):
    apps.get_model("core", "InstanceSetting").objects.get_or_create(key=KEY, defaults={"value": "NW"})


def remove_setting(apps, schema_editor):
    apps.get_model("core", "InstanceSetting").objects.filter(key=KEY).delete()


class Migration(migrations.Migration):
    dependencies = [("core", "0001_initial")]

    operations = [migrations.RunPython(add_setting, remove_setting)]
