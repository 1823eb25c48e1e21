# Squashed on 2026-12-01: 0001_initial … 0002_verbose_names,
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
        ('knowledge', '0001_initial'),
        ('knowledge', '0002_verbose_names'),
    ]

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        VectorExtension(),
        migrations.CreateModel(
            name='KnowledgeFile',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('source_type', models.CharField(max_length=32, verbose_name='source type')),
                ('source_id', models.CharField(max_length=100, verbose_name='source id')),
                ('connection_key', models.CharField(blank=True, default='', max_length=100, verbose_name='connection')),
                ('title', models.CharField(blank=True, max_length=300, verbose_name='title')),
                ('path', models.CharField(blank=True, default='/', max_length=1000, verbose_name='path')),
                ('scope', models.CharField(choices=[('personal', 'Personal'), ('client', 'Client'), ('instance', 'Whole office')], max_length=10, verbose_name='scope')),
                ('owner_id', models.BigIntegerField(blank=True, null=True, verbose_name='owner')),
                ('client_id', models.BigIntegerField(blank=True, null=True, verbose_name='client')),
                ('status', models.CharField(choices=[('pending', 'Waiting'), ('indexing', 'Indexing'), ('indexed', 'Indexed'), ('failed', 'Failed'), ('cancelled', 'Cancelled'), ('excluded', 'Excluded (no consent)')], default='pending', max_length=10, verbose_name='status')),
                ('content_hash', models.CharField(blank=True, max_length=64, verbose_name='content hash')),
                ('text', models.TextField(blank=True, verbose_name='text')),
                ('sections', models.JSONField(blank=True, default=list, verbose_name='sections')),
                ('embedding_model', models.CharField(blank=True, max_length=200, verbose_name='embedding model')),
                ('chunk_count', models.PositiveIntegerField(default=0, verbose_name='chunks')),
                ('bytes', models.PositiveBigIntegerField(default=0, verbose_name='size (bytes)')),
                ('indexed_at', models.DateTimeField(blank=True, null=True, verbose_name='last indexed')),
                ('error', models.CharField(blank=True, max_length=500, verbose_name='error')),
                ('indexed_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='indexed by')),
            ],
            options={
                'verbose_name': 'indexed file',
                'verbose_name_plural': 'indexed files',
                'ordering': ['-updated_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='IndexJob',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                ('started_at', models.DateTimeField(blank=True, null=True, verbose_name='started')),
                ('finished_at', models.DateTimeField(blank=True, null=True, verbose_name='finished')),
                ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], default='queued', max_length=10, verbose_name='status')),
                ('cancel_requested', models.BooleanField(default=False, verbose_name='cancel requested')),
                ('total_chunks', models.PositiveIntegerField(default=0, verbose_name='chunks total')),
                ('done_chunks', models.PositiveIntegerField(default=0, verbose_name='chunks done')),
                ('embedding_model', models.CharField(blank=True, max_length=200, verbose_name='embedding model')),
                ('reason', models.CharField(blank=True, max_length=40, verbose_name='reason')),
                ('error', models.CharField(blank=True, max_length=500, verbose_name='error')),
                ('requested_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='requested by')),
                ('file', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='jobs', to='knowledge.knowledgefile', verbose_name='file')),
            ],
            options={
                'verbose_name': 'indexing job',
                'verbose_name_plural': 'indexing jobs',
                'ordering': ['-id'],
            },
        ),
        migrations.CreateModel(
            name='Chunk',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('ordinal', models.PositiveIntegerField()),
                ('heading', models.CharField(blank=True, max_length=300)),
                ('text', models.TextField()),
                ('content_hash', models.CharField(max_length=64)),
                ('embedding_model', models.CharField(max_length=200)),
                ('embedding', pgvector.django.vector.VectorField(dimensions=384)),
                ('scope', models.CharField(choices=[('personal', 'Personal'), ('client', 'Client'), ('instance', 'Whole office')], max_length=10)),
                ('owner_id', models.BigIntegerField(blank=True, null=True)),
                ('client_id', models.BigIntegerField(blank=True, null=True)),
                ('source_type', models.CharField(max_length=32)),
                ('search', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.SearchVector('heading', 'text', config='german'), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('file', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chunks', to='knowledge.knowledgefile')),
            ],
            options={
                'verbose_name': 'chunk',
                'verbose_name_plural': 'chunks',
                'ordering': ['file_id', 'ordinal'],
            },
        ),
        migrations.CreateModel(
            name='ConsentRule',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('updated_at', models.DateTimeField(auto_now=True, verbose_name='updated')),
                ('path_prefix', models.CharField(blank=True, max_length=1000, verbose_name='path prefix')),
                ('connection_key', models.CharField(blank=True, default='', max_length=100, verbose_name='connection')),
                ('enabled', models.BooleanField(default=True, verbose_name='indexing enabled')),
                ('changed_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'consent rule',
                'verbose_name_plural': 'consent rules',
                'ordering': ['connection_key', 'path_prefix'],
                'constraints': [models.UniqueConstraint(fields=('connection_key', 'path_prefix'), name='knowledge_consent_once')],
            },
        ),
        migrations.AddIndex(
            model_name='knowledgefile',
            index=models.Index(fields=['status'], name='knowledge_file_status'),
        ),
        migrations.AddIndex(
            model_name='knowledgefile',
            index=models.Index(fields=['path'], name='knowledge_file_path', opclasses=['varchar_pattern_ops']),
        ),
        migrations.AddConstraint(
            model_name='knowledgefile',
            constraint=models.UniqueConstraint(fields=('source_type', 'source_id'), name='knowledge_file_source_once'),
        ),
        migrations.AddConstraint(
            model_name='knowledgefile',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('scope', 'personal'), _negated=True), ('owner_id__isnull', False), _connector='OR'), name='knowledge_file_personal_has_owner'),
        ),
        migrations.AddConstraint(
            model_name='knowledgefile',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('scope', 'client'), _negated=True), ('client_id__isnull', False), _connector='OR'), name='knowledge_file_client_has_client'),
        ),
        migrations.AddIndex(
            model_name='indexjob',
            index=models.Index(fields=['status'], name='knowledge_job_status'),
        ),
        migrations.AddIndex(
            model_name='chunk',
            index=pgvector.django.indexes.HnswIndex(ef_construction=64, fields=['embedding'], m=16, name='knowledge_chunk_embedding', opclasses=['vector_cosine_ops']),
        ),
        migrations.AddIndex(
            model_name='chunk',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search'], name='knowledge_chunk_search'),
        ),
        migrations.AddIndex(
            model_name='chunk',
            index=models.Index(fields=['scope', 'owner_id'], name='knowledge_chunk_scope_owner'),
        ),
        migrations.AddIndex(
            model_name='chunk',
            index=models.Index(fields=['client_id'], name='knowledge_chunk_client'),
        ),
        migrations.AddConstraint(
            model_name='chunk',
            constraint=models.UniqueConstraint(fields=('file', 'embedding_model', 'ordinal'), name='knowledge_chunk_ordinal_once'),
        ),
    ]
