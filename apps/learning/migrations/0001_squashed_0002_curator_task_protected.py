# Squashed on 2026-12-01: 0001_initial … 0002_curator_task_protected,
# made anew by makemigrations, plus the operations a new database still needs (extensions,
# functions, seed rows). Data fixes for rows of older installations are gone: an
# installation that applied all the replaced migrations takes this one as applied.

import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('learning', '0001_initial'),
        ('learning', '0002_curator_task_protected'),
    ]

    dependencies = [
        ('agent', '0001_squashed_0006_session_title_source'),
        ('django_celery_beat', '0019_alter_periodictasks_options'),
        ('llm', '0001_squashed_0002_verbose_names'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='LearningObject',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('kind', models.CharField(choices=[('durable_fact', 'Durable fact'), ('procedure_proposal', 'Procedure proposal')], max_length=24, verbose_name='kind')),
                ('text', models.TextField(verbose_name='text')),
                ('subject', models.CharField(blank=True, max_length=120, verbose_name='subject')),
                ('status', models.CharField(choices=[('active', 'Active'), ('staged', 'Staged'), ('rejected', 'Rejected'), ('retired', 'Retired')], default='staged', max_length=16, verbose_name='status')),
                ('staged_reason', models.CharField(blank=True, choices=[('', '—'), ('correction', 'Correction of an earlier fact'), ('conflict', 'Conflicts with an active fact'), ('unsafe', 'Possibly unsafe or instruction-like'), ('procedure', 'Procedures always need a person'), ('uncertain', 'The extractor was not sure')], default='', max_length=16, verbose_name='why staged')),
                ('origin', models.CharField(choices=[('extraction', 'Extracted from a chat'), ('person', 'Entered by a person')], default='extraction', max_length=16, verbose_name='origin')),
                ('confidence', models.FloatField(blank=True, null=True, verbose_name='confidence')),
                ('content_hash', models.CharField(db_index=True, max_length=64, verbose_name='content hash')),
                ('checked_at', models.DateTimeField(blank=True, null=True, verbose_name='checked by the curator')),
                ('checked_hash', models.CharField(blank=True, default='', max_length=64)),
                ('confirmations', models.PositiveIntegerField(default=0, verbose_name='times confirmed')),
                ('decided_at', models.DateTimeField(blank=True, null=True, verbose_name='decided')),
                ('search', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.CombinedSearchVector(django.contrib.postgres.search.SearchVector('subject', config='german', weight='A'), '||', django.contrib.postgres.search.SearchVector('text', config='german', weight='B'), django.contrib.postgres.search.SearchConfig('german')), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('conflicts_with', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='learning.learningobject', verbose_name='conflicts with')),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='decided by')),
            ],
            options={
                'verbose_name': 'learning object',
                'verbose_name_plural': 'learning objects',
                'ordering': ['-updated_at', '-id'],
                'permissions': [('review_learningobject', 'Can review learning objects')],
            },
        ),
        migrations.CreateModel(
            name='LearningEvidence',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('quote', models.TextField(verbose_name='quoted span')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='agent.run', verbose_name='run')),
                ('learning_object', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='evidence', to='learning.learningobject')),
            ],
            options={
                'verbose_name': 'evidence',
                'verbose_name_plural': 'evidence',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='LearningDecision',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('decision', models.CharField(choices=[('activate', 'Activated automatically'), ('stage', 'Staged for review'), ('approve', 'Approved'), ('edit', 'Edited and approved'), ('reject', 'Rejected'), ('keep', 'Kept'), ('retire', 'Retired'), ('confirm', 'Confirmed again'), ('revert', 'Reverted an earlier decision')], max_length=16, verbose_name='decision')),
                ('actor', models.CharField(choices=[('person', 'Person'), ('curator', 'Curator'), ('extraction', 'Extraction')], max_length=16, verbose_name='decided by')),
                ('reason', models.CharField(blank=True, choices=[('', '—'), ('false', 'False'), ('noisy', 'Noisy'), ('unsafe', 'Unsafe'), ('duplicate', 'Duplicate'), ('temporary', 'Temporary'), ('low_value', 'Low value'), ('uncertain', 'Uncertain')], default='', max_length=16, verbose_name='reason')),
                ('note', models.TextField(blank=True, verbose_name='note')),
                ('confidence', models.FloatField(blank=True, null=True, verbose_name='confidence')),
                ('model_label', models.CharField(blank=True, max_length=300, verbose_name='model used')),
                ('before', models.JSONField(default=dict, verbose_name='before')),
                ('after', models.JSONField(default=dict, verbose_name='after')),
                ('reverted_at', models.DateTimeField(blank=True, null=True, verbose_name='reverted')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='when')),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='person')),
                ('reverted_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='reverted by')),
                ('learning_object', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='decisions', to='learning.learningobject')),
            ],
            options={
                'verbose_name': 'learning decision',
                'verbose_name_plural': 'learning decisions',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='LearningSettings',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('enabled', models.BooleanField(default=True, help_text='Off: no extraction after chat answers.', verbose_name='learn from chats')),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('curator_model', models.ForeignKey(blank=True, help_text='Reviews new and changed facts and removes only clear mistakes. Empty: no curation.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='llm.modelconfig', verbose_name='curator model')),
                ('curator_task', models.OneToOneField(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='django_celery_beat.periodictask', verbose_name='curator schedule')),
                ('extraction_model', models.ForeignKey(blank=True, help_text='Reads each finished chat and proposes facts and procedures. Empty: no extraction.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='llm.modelconfig', verbose_name='extraction model')),
            ],
            options={
                'verbose_name': 'learning settings',
                'verbose_name_plural': 'learning settings',
            },
        ),
        migrations.CreateModel(
            name='LearningJobRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('job', models.CharField(choices=[('extraction', 'Extraction'), ('curation', 'Curator')], max_length=16, verbose_name='job')),
                ('outcome', models.CharField(choices=[('done', 'Done'), ('skipped', 'Skipped'), ('invalid_model_output', 'Invalid model output'), ('failed', 'Failed')], max_length=24, verbose_name='outcome')),
                ('reason', models.TextField(blank=True, verbose_name='reason')),
                ('model_label', models.CharField(blank=True, max_length=300, verbose_name='model used')),
                ('counts', models.JSONField(default=dict, verbose_name='counts')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='when')),
                ('run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='agent.run', verbose_name='run')),
            ],
            options={
                'verbose_name': 'learning job run',
                'verbose_name_plural': 'learning job runs',
                'ordering': ['-created_at', '-id'],
                'constraints': [models.UniqueConstraint(condition=models.Q(('job', 'extraction')), fields=('run',), name='learning_extraction_once_per_run')],
            },
        ),
        migrations.AddIndex(
            model_name='learningobject',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search'], name='learning_object_search'),
        ),
        migrations.AddIndex(
            model_name='learningobject',
            index=models.Index(fields=['status', 'kind'], name='learning_status_kind'),
        ),
        migrations.AddIndex(
            model_name='learningobject',
            index=models.Index(fields=['subject'], name='learning_subject'),
        ),
        migrations.AddConstraint(
            model_name='learningobject',
            constraint=models.UniqueConstraint(condition=models.Q(('status', 'active')), fields=('content_hash',), name='learning_active_once'),
        ),
        migrations.AddIndex(
            model_name='learningdecision',
            index=models.Index(fields=['actor', 'reverted_at'], name='learning_decision_actor'),
        ),
    ]
