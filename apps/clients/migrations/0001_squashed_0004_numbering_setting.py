# Squashed on 2026-12-01: 0001_initial … 0004_numbering_setting,
# made anew by makemigrations, plus the operations a new database still needs (extensions,
# functions, seed rows). Data fixes for rows of older installations are gone: an
# installation that applied all the replaced migrations takes this one as applied.

import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


KEY = "clients.numbering"


def add_setting(apps, schema_editor):
    apps.get_model("core", "InstanceSetting").objects.get_or_create(
        key=KEY, defaults={"value": {"prefix": "", "start": 10001, "width": 5}}
    )


def remove_setting(apps, schema_editor):
    apps.get_model("core", "InstanceSetting").objects.filter(key=KEY).delete()


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('clients', '0001_initial'),
        ('clients', '0002_neutralize_always'),
        ('clients', '0003_neutralize_always_db_default'),
        ('clients', '0004_numbering_setting'),
    ]

    dependencies = [
        ('core', '0001_squashed_0002_deadlines_bundesland'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Client',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('kind', models.CharField(choices=[('person', 'Person'), ('company', 'Company')], default='person', max_length=10, verbose_name='kind')),
                ('name', models.CharField(max_length=200, verbose_name='name')),
                ('client_number', models.CharField(max_length=40, unique=True, verbose_name='client number')),
                ('tax_number', models.CharField(blank=True, max_length=40, verbose_name='tax number')),
                ('email', models.CharField(blank=True, max_length=254, verbose_name='e-mail')),
                ('phone', models.CharField(blank=True, max_length=60, verbose_name='phone')),
                ('street', models.CharField(blank=True, max_length=200, verbose_name='street')),
                ('postal_code', models.CharField(blank=True, max_length=20, verbose_name='postal code')),
                ('city', models.CharField(blank=True, max_length=120, verbose_name='city')),
                ('country', models.CharField(blank=True, default='Deutschland', max_length=80, verbose_name='country')),
                ('status', models.CharField(choices=[('active', 'Active'), ('inactive', 'Inactive')], default='active', max_length=10, verbose_name='status')),
                ('notes', models.TextField(blank=True, verbose_name='notes')),
                ('neutralize_always', models.BooleanField(db_default=False, default=False, help_text="Whenever the copilot or a model call touches this client's data (its cases and documents included), names and numbers are replaced before anything reaches a model provider, even when neutralization is switched off for the office.", verbose_name='always neutralize')),
                ('search', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.SearchVector('name', 'client_number', 'tax_number', 'city', 'email', config='german'), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('responsible', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='responsible_clients', to=settings.AUTH_USER_MODEL, verbose_name='responsible')),
            ],
            options={
                'verbose_name': 'client',
                'verbose_name_plural': 'clients',
                'ordering': ['name', 'id'],
            },
        ),
        migrations.CreateModel(
            name='Case',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('reference', models.CharField(max_length=60, unique=True, verbose_name='reference')),
                ('subject', models.CharField(max_length=300, verbose_name='subject')),
                ('status', models.CharField(choices=[('open', 'Open'), ('closed', 'Closed')], default='open', max_length=10, verbose_name='status')),
                ('neutralize_always', models.BooleanField(db_default=False, default=False, help_text='Model calls that touch this case are neutralized even when neutralization is switched off for the office (a case of a client marked so always is).', verbose_name='always neutralize')),
                ('responsible', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='responsible_cases', to=settings.AUTH_USER_MODEL, verbose_name='responsible')),
                ('client', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='cases', to='clients.client', verbose_name='client')),
            ],
            options={
                'verbose_name': 'case',
                'verbose_name_plural': 'cases',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.AddIndex(
            model_name='client',
            index=models.Index(fields=['status', 'name'], name='client_status_name'),
        ),
        migrations.AddIndex(
            model_name='client',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search'], name='client_search'),
        ),
        migrations.AddIndex(
            model_name='case',
            index=models.Index(fields=['client', 'status'], name='case_client_status'),
        ),
        migrations.RunPython(add_setting, remove_setting),
    ]
