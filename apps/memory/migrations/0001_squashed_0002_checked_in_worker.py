# Squashed on 2026-12-01: 0001_initial … 0002_checked_in_worker,
# made anew by makemigrations, plus the operations a new database still needs (extensions,
# functions, seed rows). Data fixes for rows of older installations are gone: an
# installation that applied all the replaced migrations takes this one as applied.

import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.deletion
import pgvector.django.indexes
import pgvector.django.vector
from django.conf import settings
from django.db import migrations, models
from pgvector.django import VectorExtension


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('memory', '0001_initial'),
        ('memory', '0002_checked_in_worker'),
    ]

    dependencies = [
        ('clients', '0001_squashed_0004_numbering_setting'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        VectorExtension(),
        migrations.CreateModel(
            name='Memory',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('text', models.TextField(verbose_name='text')),
                ('canonical_key', models.CharField(max_length=64, verbose_name='canonical key')),
                ('kind', models.CharField(choices=[('fact', 'Fact'), ('preference', 'Preference'), ('procedure', 'Procedure'), ('note', 'Note')], default='fact', max_length=12, verbose_name='kind')),
                ('scope', models.CharField(choices=[('shared', 'Whole office'), ('personal', 'Personal')], default='shared', max_length=10, verbose_name='scope')),
                ('specialist', models.CharField(blank=True, default='', max_length=64, verbose_name='specialist')),
                ('holder', models.CharField(default='shared', editable=False, max_length=80, verbose_name='holder')),
                ('source_kind', models.CharField(choices=[('chat_run', 'Chat'), ('document', 'Document'), ('api_key', 'API key'), ('person', 'Person')], max_length=10, verbose_name='source')),
                ('source_ref', models.CharField(blank=True, max_length=100, verbose_name='source reference')),
                ('assertion', models.CharField(choices=[('asserted', 'Asserted'), ('confirmed', 'Confirmed'), ('disputed', 'Disputed'), ('retracted', 'Retracted')], default='asserted', max_length=10, verbose_name='assertion')),
                ('review', models.CharField(choices=[('pending', 'Waiting for review'), ('approved', 'Approved'), ('rejected', 'Rejected')], default='pending', max_length=10, verbose_name='review')),
                ('reviewed_at', models.DateTimeField(blank=True, null=True, verbose_name='reviewed')),
                ('valid_from', models.DateTimeField(blank=True, null=True, verbose_name='valid from')),
                ('valid_until', models.DateTimeField(blank=True, null=True, verbose_name='valid until')),
                ('conflict', models.JSONField(blank=True, default=dict, verbose_name='conflict')),
                ('checking', models.BooleanField(db_default=False, default=False, verbose_name='being checked')),
                ('confirmations', models.PositiveIntegerField(default=1, verbose_name='confirmations')),
                ('last_confirmed_at', models.DateTimeField(blank=True, null=True, verbose_name='last confirmed')),
                ('embedding', pgvector.django.vector.VectorField(blank=True, dimensions=384, null=True)),
                ('embedding_model', models.CharField(blank=True, max_length=200, verbose_name='embedding model')),
                ('search', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.SearchVector('text', config='german'), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('conflicts_with', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='conflicts', to='memory.memory', verbose_name='contradicts')),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='created by')),
                ('duplicate_of', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='merged', to='memory.memory', verbose_name='merged into')),
                ('owner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='memories', to=settings.AUTH_USER_MODEL, verbose_name='owner')),
                ('reviewed_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='reviewed by')),
                ('subject_case', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='memories', to='clients.case', verbose_name='case')),
                ('subject_client', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='memories', to='clients.client', verbose_name='client')),
                ('subject_person', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='memories_about', to=settings.AUTH_USER_MODEL, verbose_name='person')),
            ],
            options={
                'verbose_name': 'memory',
                'verbose_name_plural': 'memories',
                'ordering': ['-updated_at', '-id'],
                'permissions': [('review_memory', "Can review the office's memory")],
            },
        ),
        migrations.CreateModel(
            name='MemoryRevision',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('action', models.CharField(choices=[('created', 'Created'), ('confirmed', 'Confirmed by another source'), ('conflict_staged', 'Staged as a conflict'), ('approved', 'Approved'), ('edited', 'Edited and approved'), ('rejected', 'Rejected'), ('updated', 'Changed'), ('disputed', 'Disputed'), ('retracted', 'Retracted'), ('restored', 'Restored'), ('merged', 'Merged into a memory saying the same')], max_length=16, verbose_name='action')),
                ('actor_label', models.CharField(blank=True, max_length=300, verbose_name='by')),
                ('before', models.JSONField(blank=True, default=dict, verbose_name='before')),
                ('after', models.JSONField(blank=True, default=dict, verbose_name='after')),
                ('note', models.CharField(blank=True, max_length=1000, verbose_name='note')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='when')),
                ('actor', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='by')),
                ('memory', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='revisions', to='memory.memory')),
            ],
            options={
                'verbose_name': 'memory revision',
                'verbose_name_plural': 'memory revisions',
                'ordering': ['memory_id', 'id'],
            },
        ),
        migrations.CreateModel(
            name='MemorySource',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('chat_run', 'Chat'), ('document', 'Document'), ('api_key', 'API key'), ('person', 'Person')], max_length=10, verbose_name='source')),
                ('ref', models.CharField(blank=True, max_length=100, verbose_name='reference')),
                ('quote', models.TextField(blank=True, verbose_name='quoted evidence')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='added')),
                ('added_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('memory', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sources', to='memory.memory')),
            ],
            options={
                'verbose_name': 'memory source',
                'verbose_name_plural': 'memory sources',
                'ordering': ['memory_id', 'id'],
            },
        ),
        migrations.AddIndex(
            model_name='memory',
            index=pgvector.django.indexes.HnswIndex(condition=models.Q(('review', 'approved')), ef_construction=64, fields=['embedding'], m=16, name='memory_embedding_approved', opclasses=['vector_cosine_ops']),
        ),
        migrations.AddIndex(
            model_name='memory',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search'], name='memory_search'),
        ),
        migrations.AddIndex(
            model_name='memory',
            index=models.Index(fields=['holder', 'review'], name='memory_holder_review'),
        ),
        migrations.AddIndex(
            model_name='memory',
            index=models.Index(fields=['review', '-created_at'], name='memory_review_queue'),
        ),
        migrations.AddIndex(
            model_name='memory',
            index=models.Index(fields=['subject_client'], name='memory_subject_client'),
        ),
        migrations.AddConstraint(
            model_name='memory',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('owner__isnull', True), ('scope', 'shared'), ('specialist', '')), models.Q(('owner__isnull', False), ('scope', 'personal'), ('specialist', '')), models.Q(('owner__isnull', True), ('scope', 'personal'), models.Q(('specialist', ''), _negated=True)), _connector='OR'), name='memory_scope_has_one_holder'),
        ),
        migrations.AddConstraint(
            model_name='memory',
            constraint=models.UniqueConstraint(condition=models.Q(models.Q(('review', 'rejected'), _negated=True), models.Q(('assertion', 'retracted'), _negated=True)), fields=('holder', 'canonical_key'), name='memory_canonical_once'),
        ),
        migrations.AddConstraint(
            model_name='memory',
            constraint=models.CheckConstraint(condition=models.Q(('valid_until__isnull', True), ('valid_from__isnull', True), ('valid_until__gt', models.F('valid_from')), _connector='OR'), name='memory_valid_range'),
        ),
        migrations.AddIndex(
            model_name='memoryrevision',
            index=models.Index(fields=['memory', 'id'], name='memory_revision_order'),
        ),
    ]
