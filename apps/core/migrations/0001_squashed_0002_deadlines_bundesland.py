# Squashed on 2026-12-01: 0001_initial … 0002_deadlines_bundesland,
# made anew by makemigrations, plus the operations a new database still needs (extensions,
# functions, seed rows). Data fixes for rows of older installations are gone: an
# installation that applied all the replaced migrations takes this one as applied.

from django.db import migrations, models
from pgvector.django import VectorExtension


KEY = "deadlines.bundesland"


def add_setting(apps, schema_editor):
    apps.get_model("core", "InstanceSetting").objects.get_or_create(key=KEY, defaults={"value": "NW"})


def remove_setting(apps, schema_editor):
    apps.get_model("core", "InstanceSetting").objects.filter(key=KEY).delete()


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('core', '0001_initial'),
        ('core', '0002_deadlines_bundesland'),
    ]

    dependencies = [
    ]

    operations = [
        VectorExtension(),
        migrations.CreateModel(
            name='Heartbeat',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('component', models.CharField(max_length=64, unique=True, verbose_name='component')),
                ('beat_at', models.DateTimeField(verbose_name='last beat')),
                ('hostname', models.CharField(blank=True, max_length=255, verbose_name='host')),
                ('count', models.PositiveBigIntegerField(default=0, verbose_name='beats')),
            ],
            options={
                'verbose_name': 'heartbeat',
                'verbose_name_plural': 'heartbeats',
            },
        ),
        migrations.CreateModel(
            name='InstanceSetting',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('updated_at', models.DateTimeField(auto_now=True, verbose_name='updated')),
                ('key', models.CharField(max_length=100, unique=True, verbose_name='key')),
                ('value', models.JSONField(blank=True, default=dict, verbose_name='value')),
            ],
            options={
                'verbose_name': 'instance setting',
                'verbose_name_plural': 'instance settings',
                'ordering': ['key'],
            },
        ),
        migrations.RunPython(add_setting, remove_setting),
    ]
