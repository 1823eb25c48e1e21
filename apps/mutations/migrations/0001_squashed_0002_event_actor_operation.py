# Squashed on 2026-12-01: 0001_initial … 0002_event_actor_operation,
# made anew by makemigrations, plus the operations a new database still needs (extensions,
# functions, seed rows). Data fixes for rows of older installations are gone: an
# installation that applied all the replaced migrations takes this one as applied.

import django.contrib.postgres.indexes
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


# Transaction ids of the *other* sessions of this database that are still running. An event row
# records the newest one at insert; readers compare with the oldest one now. Only this database
# counts (a busy neighbour database on the same server must not stall the stream), and only the
# application's own role can write events, whose sessions pg_stat_activity always shows in full.
# backend_xid is 32 bits: at a wraparound a row can look pending until SETTLE_SECONDS pass.
RUNNING_XIDS = """
CREATE OR REPLACE FUNCTION {name}() RETURNS bigint LANGUAGE sql VOLATILE AS $$
    -- pg_stat_activity is otherwise read once per transaction and cached: a caller recording
    -- several events in one transaction must see sessions that started in between.
    SELECT pg_stat_clear_snapshot();
    SELECT {agg}(backend_xid::text::bigint) FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL
$$;
"""


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('mutations', '0001_initial'),
        ('mutations', '0002_event_actor_operation'),
    ]

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunSQL(
            RUNNING_XIDS.format(name="mutation_event_running_xid_max", agg="max"),
            "DROP FUNCTION IF EXISTS mutation_event_running_xid_max();",
        ),
        migrations.RunSQL(
            RUNNING_XIDS.format(name="mutation_event_running_xid_min", agg="min"),
            "DROP FUNCTION IF EXISTS mutation_event_running_xid_min();",
        ),
        migrations.CreateModel(
            name='MutationEvent',
            fields=[
                ('id', models.BigAutoField(primary_key=True, serialize=False)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='created')),
                ('audience', models.CharField(choices=[('user', 'One user'), ('all', 'All users'), ('all_except', 'All users except one')], max_length=16, verbose_name='audience')),
                ('topic', models.CharField(max_length=100, verbose_name='topic')),
                ('ui_actions', models.JSONField(blank=True, default=list, verbose_name='UI actions')),
                ('trigger_reload', models.BooleanField(default=False, verbose_name='reload views')),
                ('refresh_topic', models.CharField(blank=True, max_length=100, verbose_name='refresh topic')),
                ('origin_tool', models.CharField(blank=True, max_length=100, verbose_name='origin tool')),
                ('origin_run', models.CharField(blank=True, max_length=64, verbose_name='origin run')),
                ('actor_id', models.PositiveBigIntegerField(blank=True, null=True, verbose_name='actor')),
                ('operation', models.CharField(blank=True, max_length=32, verbose_name='operation')),
                ('pending_xid', models.BigIntegerField(blank=True, db_default=models.Func(function='mutation_event_running_xid_max', output_field=models.BigIntegerField()), editable=False, null=True, verbose_name='pending transaction')),
                ('user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='user')),
            ],
            options={
                'verbose_name': 'UI mutation event',
                'verbose_name_plural': 'UI mutation events',
                'ordering': ['-id'],
                'indexes': [models.Index(fields=['id', 'audience', 'user'], name='mutation_event_visibility'), django.contrib.postgres.indexes.BrinIndex(fields=['created_at'], name='mutation_event_created_brin')],
                'constraints': [models.CheckConstraint(condition=models.Q(models.Q(('audience', 'all'), ('user__isnull', True)), models.Q(('audience__in', ['user', 'all_except']), ('user__isnull', False)), _connector='OR'), name='mutation_event_audience_user')],
            },
        ),
    ]
