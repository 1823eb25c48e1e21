"""The office's Mandantennummer scheme (`apps.clients.numbering`), visible and editable in the
instance settings admin from the start."""

from django.db import migrations

KEY = "clients.numbering"


def add_setting(apps, schema_editor):
    apps.get_model("core", "InstanceSetting").objects.get_or_create(
        key=KEY, defaults={"value": {"prefix": "", "start": 10001, "width": 5}}
    )


def remove_setting(apps, schema_editor):
    apps.get_model("core", "InstanceSetting").objects.filter(key=KEY).delete()


class Migration(migrations.Migration):
    dependencies = [("clients", "0003_neutralize_always_db_default"), ("core", "0001_initial")]

    operations = [migrations.RunPython(add_setting, remove_setting)]
