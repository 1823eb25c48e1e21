# Squashed on 2026-12-01: 0001_initial … 0006_fristenbuch_reason_code,
# made anew by makemigrations, plus the operations a new database still needs (extensions,
# functions, seed rows). Data fixes for rows of older installations are gone: an
# installation that applied all the replaced migrations takes this one as applied.

import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('office_calendar', '0001_initial'),
        ('office_calendar', '0002_calendarevent_client'),
        ('office_calendar', '0003_fristenkontrolle'),
        ('office_calendar', '0004_deadline_status_labels'),
        ('office_calendar', '0005_alter_calendarevent_created_by_and_more'),
        ('office_calendar', '0006_fristenbuch_reason_code'),
    ]

    dependencies = [
        ('accounts', '0001_squashed_0002_user_mute_toasts'),
        ('clients', '0001_squashed_0004_numbering_setting'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='CalendarEvent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('kind', models.CharField(choices=[('event', 'Appointment'), ('deadline', 'Deadline')], default='event', max_length=10, verbose_name='kind')),
                ('title', models.CharField(max_length=300, verbose_name='title')),
                ('description', models.TextField(blank=True, verbose_name='description')),
                ('start', models.DateTimeField(verbose_name='start')),
                ('end', models.DateTimeField(verbose_name='end')),
                ('all_day', models.BooleanField(default=False, verbose_name='all day')),
                ('time_zone', models.CharField(default='Europe/Berlin', max_length=64, verbose_name='time zone')),
                ('location', models.CharField(blank=True, max_length=300, verbose_name='location')),
                ('visibility', models.CharField(choices=[('shared', 'Office calendar'), ('private', 'Private')], default='shared', max_length=10, verbose_name='visibility')),
                ('conference_url', models.URLField(blank=True, max_length=500, verbose_name='conference link')),
                ('conference_provider', models.CharField(blank=True, max_length=60, verbose_name='conference provider')),
                ('source_origin', models.CharField(choices=[('manual', 'Created by hand'), ('agent', 'Copilot'), ('document', 'Document'), ('api', 'API')], default='manual', max_length=10, verbose_name='origin')),
                ('legal_basis', models.CharField(blank=True, max_length=300, verbose_name='legal basis')),
                ('criticality', models.CharField(choices=[('low', 'Low'), ('normal', 'Normal'), ('high', 'High'), ('critical', 'Critical')], default='normal', max_length=10, verbose_name='criticality')),
                ('source_label', models.CharField(blank=True, max_length=200, verbose_name='origin label')),
                ('status', models.CharField(choices=[('open', 'open'), ('done', 'done'), ('cancelled', 'cancelled')], db_default='open', default='open', max_length=10, verbose_name='status')),
                ('done_at', models.DateTimeField(blank=True, null=True, verbose_name='done at')),
                ('done_how', models.CharField(blank=True, db_default='', max_length=300, verbose_name='how it was done')),
                ('done_link', models.CharField(blank=True, db_default='', max_length=500, verbose_name='done in (link)')),
                ('cancelled_at', models.DateTimeField(blank=True, null=True, verbose_name='cancelled at')),
                ('cancel_reason', models.CharField(blank=True, db_default='', max_length=500, verbose_name='reason for cancelling')),
                ('trigger_date', models.DateField(blank=True, null=True, verbose_name='trigger date')),
                ('rule_code', models.CharField(blank=True, db_default='', max_length=60, verbose_name='rule')),
                ('rrule', models.CharField(blank=True, max_length=500, verbose_name='recurrence rule')),
                ('recurrence_end', models.DateTimeField(blank=True, null=True)),
                ('remind_minutes_before', models.PositiveIntegerField(blank=True, null=True, verbose_name='reminder (minutes before)')),
                ('remind_at', models.DateTimeField(blank=True, null=True)),
                ('reminded_at', models.DateTimeField(blank=True, null=True)),
                ('search', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.SearchVector('title', 'description', 'location', config='german'), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('attendees', models.ManyToManyField(blank=True, related_name='calendar_events', to=settings.AUTH_USER_MODEL, verbose_name='attendees')),
                ('cancelled_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='cancelled by')),
                ('case', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='calendar_events', to='clients.case', verbose_name='case')),
                ('client', models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='calendar_events', to='clients.client', verbose_name='client')),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='created by')),
                ('created_by_service', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='accounts.serviceprincipal', verbose_name='created through')),
                ('deputy', models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='deadlines_deputy', to=settings.AUTH_USER_MODEL, verbose_name='deputy')),
                ('done_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='done by')),
                ('owner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='owned_calendar_events', to=settings.AUTH_USER_MODEL)),
                ('responsible', models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='deadlines_responsible', to=settings.AUTH_USER_MODEL, verbose_name='responsible')),
            ],
            options={
                'verbose_name': 'calendar entry',
                'verbose_name_plural': 'calendar entries',
                'ordering': ['start', 'id'],
            },
        ),
        migrations.CreateModel(
            name='CalendarFeedToken',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('token_hash', models.CharField(max_length=64, unique=True)),
                ('prefix', models.CharField(max_length=8)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('revoked_at', models.DateTimeField(blank=True, null=True)),
                ('last_used_at', models.DateTimeField(blank=True, null=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='calendar_feeds', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'calendar feed token',
                'verbose_name_plural': 'calendar feed tokens',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='DeadlineChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='at')),
                ('actor_label', models.CharField(blank=True, max_length=200)),
                ('field', models.CharField(max_length=40, verbose_name='field')),
                ('old', models.TextField(blank=True, verbose_name='before')),
                ('new', models.TextField(blank=True, verbose_name='after')),
                ('reason', models.CharField(blank=True, max_length=500, verbose_name='reason')),
                ('reason_code', models.CharField(blank=True, db_default='', max_length=60, verbose_name='reason code')),
                ('reason_params', models.JSONField(blank=True, db_default={}, default=dict, verbose_name='reason values')),
                ('actor', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='by')),
                ('event', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='history', to='office_calendar.calendarevent')),
            ],
            options={
                'verbose_name': 'Fristenbuch entry',
                'verbose_name_plural': 'Fristenbuch',
                'ordering': ['at', 'id'],
            },
        ),
        migrations.CreateModel(
            name='PreDeadline',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('due_date', models.DateField(verbose_name='Vorfrist')),
                ('note', models.CharField(blank=True, max_length=300, verbose_name='note')),
                ('reminded_at', models.DateTimeField(blank=True, null=True)),
                ('event', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pre_deadlines', to='office_calendar.calendarevent')),
            ],
            options={
                'verbose_name': 'Vorfrist',
                'verbose_name_plural': 'Vorfristen',
                'ordering': ['due_date', 'id'],
            },
        ),
        migrations.AddIndex(
            model_name='calendarevent',
            index=models.Index(fields=['start', 'end'], name='cal_event_window'),
        ),
        migrations.AddIndex(
            model_name='calendarevent',
            index=models.Index(fields=['kind', 'start'], name='cal_event_kind_start'),
        ),
        migrations.AddIndex(
            model_name='calendarevent',
            index=models.Index(fields=['owner', 'visibility'], name='cal_event_owner'),
        ),
        migrations.AddIndex(
            model_name='calendarevent',
            index=models.Index(fields=['client', 'start'], name='cal_event_client_start'),
        ),
        migrations.AddIndex(
            model_name='calendarevent',
            index=models.Index(condition=models.Q(('rrule', ''), _negated=True), fields=['start', 'recurrence_end'], name='cal_event_series'),
        ),
        migrations.AddIndex(
            model_name='calendarevent',
            index=models.Index(condition=models.Q(('remind_at__isnull', False), ('reminded_at__isnull', True)), fields=['remind_at'], name='cal_event_reminder_due'),
        ),
        migrations.AddIndex(
            model_name='calendarevent',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search'], name='cal_event_search'),
        ),
        migrations.AddIndex(
            model_name='calendarevent',
            index=models.Index(condition=models.Q(('kind', 'deadline')), fields=['status', 'start'], name='cal_deadline_status_due'),
        ),
        migrations.AddIndex(
            model_name='calendarevent',
            index=models.Index(condition=models.Q(('kind', 'deadline')), fields=['responsible', 'status', 'start'], name='cal_deadline_responsible'),
        ),
        migrations.AddIndex(
            model_name='calendarevent',
            index=models.Index(condition=models.Q(('kind', 'deadline')), fields=['deputy', 'status', 'start'], name='cal_deadline_deputy'),
        ),
        migrations.AddConstraint(
            model_name='calendarevent',
            constraint=models.CheckConstraint(condition=models.Q(('end__gte', models.F('start'))), name='cal_event_end_after_start'),
        ),
        migrations.AddConstraint(
            model_name='calendarevent',
            constraint=models.CheckConstraint(condition=models.Q(('visibility', 'shared'), ('owner__isnull', False), _connector='OR'), name='cal_event_private_has_owner'),
        ),
        migrations.AddIndex(
            model_name='deadlinechange',
            index=models.Index(fields=['event', 'at'], name='cal_history_event'),
        ),
        migrations.AddIndex(
            model_name='deadlinechange',
            index=models.Index(fields=['at'], name='cal_history_at'),
        ),
        migrations.AddIndex(
            model_name='predeadline',
            index=models.Index(fields=['due_date', 'event'], name='cal_predeadline_due'),
        ),
    ]
