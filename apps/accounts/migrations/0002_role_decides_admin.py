"""One admin concept: `is_superuser` follows the role (see `User.save`); existing rows are put in
step once here."""

from django.db import migrations


def sync(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    User.objects.filter(role="admin").update(is_superuser=True)
    User.objects.exclude(role="admin").update(is_superuser=False)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_squashed_0002_user_mute_toasts")]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
