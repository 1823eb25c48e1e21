# Squashed on 2026-12-01: 0001_initial … 0008_alter_document_created_by_and_more,
# made anew by makemigrations, plus the operations a new database still needs (extensions,
# functions, seed rows). Data fixes for rows of older installations are gone: an
# installation that applied all the replaced migrations takes this one as applied.

import apps.documents.models
import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('documents', '0001_initial'),
        ('documents', '0002_documentworkflow_workflowitem'),
        ('documents', '0003_folder_kind'),
        ('documents', '0004_folder_neutralize_always'),
        ('documents', '0005_folder_neutralize_always_db_default'),
        ('documents', '0006_document_case'),
        ('documents', '0007_folder_client_workflow_proposals'),
        ('documents', '0008_alter_document_created_by_and_more'),
    ]

    dependencies = [
        ('accounts', '0001_squashed_0002_user_mute_toasts'),
        ('clients', '0001_squashed_0004_numbering_setting'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Document',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('title', models.CharField(max_length=300, verbose_name='title')),
                ('original_filename', models.CharField(max_length=200, verbose_name='file name')),
                ('file', models.FileField(max_length=300, upload_to=apps.documents.models._upload_to, verbose_name='file')),
                ('content_hash', models.CharField(db_index=True, max_length=64, verbose_name='SHA-256')),
                ('mime_type', models.CharField(max_length=120, verbose_name='type')),
                ('size', models.PositiveBigIntegerField(verbose_name='size')),
                ('extracted_text', models.TextField(blank=True, verbose_name='extracted text')),
                ('sections', models.JSONField(blank=True, default=list, verbose_name='sections')),
                ('page_count', models.PositiveIntegerField(blank=True, null=True, verbose_name='pages')),
                ('extraction_status', models.CharField(choices=[('pending', 'Waiting for extraction'), ('running', 'Extracting text'), ('done', 'Text extracted'), ('unsupported_format', 'Unsupported format'), ('extraction_failed', 'Extraction failed'), ('empty', 'No text found')], default='pending', max_length=20, verbose_name='extraction')),
                ('extraction_error', models.CharField(blank=True, max_length=40, verbose_name='extraction error')),
                ('extraction_message', models.CharField(blank=True, max_length=500, verbose_name='extraction message')),
                ('extracted_at', models.DateTimeField(blank=True, null=True, verbose_name='extracted')),
                ('tax_fields', models.JSONField(blank=True, default=dict, verbose_name='tax fields')),
                ('search', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.SearchVector('title', 'original_filename', django.db.models.functions.text.Left('extracted_text', 100000), config='german'), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('case', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='documents', to='clients.case', verbose_name='case')),
                ('clients', models.ManyToManyField(blank=True, related_name='documents', to='clients.client', verbose_name='related clients')),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='created by')),
                ('created_by_service', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='accounts.serviceprincipal', verbose_name='created through')),
            ],
            options={
                'verbose_name': 'document',
                'verbose_name_plural': 'documents',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='DocumentWorkflow',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('started_at', models.DateTimeField(blank=True, null=True, verbose_name='started')),
                ('finished_at', models.DateTimeField(blank=True, null=True, verbose_name='finished')),
                ('status', models.CharField(choices=[('pending', 'Waiting'), ('running', 'Analysing'), ('done', 'Done'), ('skipped', 'Skipped'), ('failed', 'Failed')], default='pending', max_length=10, verbose_name='status')),
                ('reason', models.CharField(blank=True, max_length=40, verbose_name='reason')),
                ('message', models.CharField(blank=True, max_length=500, verbose_name='message')),
                ('summary', models.TextField(blank=True, verbose_name='summary')),
                ('model_label', models.CharField(blank=True, max_length=200, verbose_name='model')),
                ('content_hash', models.CharField(blank=True, max_length=64)),
                ('prompt_tokens', models.PositiveIntegerField(default=0)),
                ('completion_tokens', models.PositiveIntegerField(default=0)),
                ('runs', models.PositiveIntegerField(default=0)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('document', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='workflow', to='documents.document')),
            ],
            options={
                'verbose_name': 'document workflow',
                'verbose_name_plural': 'document workflows',
            },
        ),
        migrations.CreateModel(
            name='Folder',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('name', models.CharField(max_length=120, verbose_name='name')),
                ('kind', models.CharField(choices=[('shared', 'Shared with the office'), ('personal', 'Personal')], default='shared', max_length=10, verbose_name='kind')),
                ('is_home', models.BooleanField(default=False, verbose_name='personal home folder')),
                ('neutralize_always', models.BooleanField(db_default=False, default=False, help_text='Model calls that touch a document in this folder or below it are neutralized even when neutralization is switched off for the office.', verbose_name='always neutralize')),
                ('tree_path', models.CharField(db_index=True, default='/', editable=False, max_length=500)),
                ('client', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='document_folders', to='clients.client', verbose_name='client')),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='created by')),
                ('owner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='document_folders', to=settings.AUTH_USER_MODEL)),
                ('parent', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='children', to='documents.folder', verbose_name='parent')),
            ],
            options={
                'verbose_name': 'folder',
                'verbose_name_plural': 'folders',
                'ordering': ['tree_path', 'name', 'id'],
            },
        ),
        migrations.AddField(
            model_name='document',
            name='folder',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='documents', to='documents.folder', verbose_name='folder'),
        ),
        migrations.CreateModel(
            name='ShareLink',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('nonce', models.CharField(max_length=64)),
                ('token_hash', models.CharField(max_length=64, unique=True)),
                ('expires_at', models.DateTimeField(blank=True, null=True, verbose_name='expires')),
                ('revoked_at', models.DateTimeField(blank=True, null=True, verbose_name='revoked')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='created by')),
                ('document', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='share_links', to='documents.document')),
            ],
            options={
                'verbose_name': 'share link',
                'verbose_name_plural': 'share links',
                'ordering': ['-created_at'],
            },
        ),
        migrations.CreateModel(
            name='WorkflowItem',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('kind', models.CharField(choices=[('task', 'Task'), ('deadline', 'Deadline'), ('client', 'Client link')], max_length=10, verbose_name='kind')),
                ('signature', models.CharField(max_length=64)),
                ('title', models.CharField(max_length=300, verbose_name='title')),
                ('target_type', models.CharField(blank=True, max_length=20)),
                ('target_id', models.PositiveBigIntegerField(blank=True, null=True)),
                ('action', models.CharField(choices=[('created', 'created'), ('updated', 'updated'), ('unchanged', 'unchanged'), ('skipped', 'skipped'), ('proposed', 'proposed'), ('accepted', 'accepted'), ('dismissed', 'dismissed')], max_length=10, verbose_name='action')),
                ('payload', models.JSONField(blank=True, default=dict)),
                ('workflow', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='items', to='documents.documentworkflow')),
            ],
            options={
                'verbose_name': 'workflow item',
                'verbose_name_plural': 'workflow items',
                'ordering': ['created_at', 'id'],
            },
        ),
        migrations.AddConstraint(
            model_name='folder',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind', 'shared'), ('owner__isnull', True)), models.Q(('kind', 'personal'), ('owner__isnull', False)), _connector='OR'), name='documents_folder_kind_owner'),
        ),
        migrations.AddConstraint(
            model_name='folder',
            constraint=models.CheckConstraint(condition=models.Q(('is_home', False), models.Q(('kind', 'personal'), ('parent__isnull', True)), _connector='OR'), name='documents_home_is_personal'),
        ),
        migrations.AddConstraint(
            model_name='folder',
            constraint=models.UniqueConstraint(condition=models.Q(('is_home', True)), fields=('owner',), name='documents_one_home_per_user'),
        ),
        migrations.AddConstraint(
            model_name='folder',
            constraint=models.UniqueConstraint(models.F('parent'), models.F('owner'), django.db.models.functions.text.Lower('name'), name='documents_folder_unique_name', nulls_distinct=False),
        ),
        migrations.AddIndex(
            model_name='document',
            index=models.Index(fields=['folder', '-created_at'], name='document_folder_created'),
        ),
        migrations.AddIndex(
            model_name='document',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search'], name='document_search'),
        ),
        migrations.AddConstraint(
            model_name='sharelink',
            constraint=models.UniqueConstraint(condition=models.Q(('revoked_at__isnull', True)), fields=('document',), name='documents_one_active_share'),
        ),
        migrations.AddConstraint(
            model_name='workflowitem',
            constraint=models.UniqueConstraint(fields=('workflow', 'signature'), name='documents_workflow_item_signature'),
        ),
    ]
