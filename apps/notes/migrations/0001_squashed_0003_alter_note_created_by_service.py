# Squashed on 2026-12-01: 0001_initial … 0003_alter_note_created_by_service,
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
        ('notes', '0001_initial'),
        ('notes', '0002_note_case'),
        ('notes', '0003_alter_note_created_by_service'),
    ]

    dependencies = [
        ('accounts', '0001_squashed_0002_user_mute_toasts'),
        ('clients', '0001_squashed_0004_numbering_setting'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='NoteFolder',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('name', models.CharField(max_length=120, verbose_name='name')),
                ('visibility', models.CharField(choices=[('shared', 'Shared with the office'), ('private', 'Private')], default='shared', max_length=8, verbose_name='visibility')),
                ('sort_order', models.IntegerField(default=0, verbose_name='order')),
                ('owner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='note_folders', to=settings.AUTH_USER_MODEL)),
                ('parent', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='children', to='notes.notefolder', verbose_name='parent')),
            ],
            options={
                'verbose_name': 'note folder',
                'verbose_name_plural': 'note folders',
                'ordering': ['sort_order', 'name', 'id'],
            },
        ),
        migrations.CreateModel(
            name='Note',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('name', models.CharField(max_length=300, verbose_name='name')),
                ('visibility', models.CharField(choices=[('shared', 'Shared with the office'), ('private', 'Private')], default='private', max_length=8, verbose_name='visibility')),
                ('search', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.SearchVector('name', config='german'), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('case', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='notes', to='clients.case', verbose_name='case')),
                ('created_by_service', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='accounts.serviceprincipal', verbose_name='created through')),
                ('owner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='notes', to=settings.AUTH_USER_MODEL)),
                ('folder', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='notes', to='notes.notefolder', verbose_name='folder')),
            ],
            options={
                'verbose_name': 'note',
                'verbose_name_plural': 'notes',
                'ordering': ['-updated_at', 'id'],
            },
        ),
        migrations.CreateModel(
            name='NotePage',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('title', models.CharField(blank=True, max_length=300, verbose_name='title')),
                ('ordinal', models.PositiveIntegerField(default=0, verbose_name='position')),
                ('html', models.TextField(blank=True, verbose_name='content')),
                ('text', models.TextField(blank=True, editable=False, verbose_name='text')),
                ('font_family', models.CharField(blank=True, max_length=60, verbose_name='font')),
                ('font_size', models.PositiveSmallIntegerField(blank=True, null=True, verbose_name='font size (pt)')),
                ('asset_items', models.JSONField(blank=True, default=list, verbose_name='assets')),
                ('audio_attachments', models.JSONField(blank=True, default=list, verbose_name='audio attachments')),
                ('search', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.SearchVector('title', 'text', config='german'), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('note', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pages', to='notes.note')),
            ],
            options={
                'verbose_name': 'note page',
                'verbose_name_plural': 'note pages',
                'ordering': ['ordinal', 'id'],
            },
        ),
        migrations.AddConstraint(
            model_name='notefolder',
            constraint=models.CheckConstraint(condition=models.Q(('visibility', 'shared'), ('owner__isnull', False), _connector='OR'), name='notes_folder_private_has_owner'),
        ),
        migrations.AddConstraint(
            model_name='notefolder',
            constraint=models.CheckConstraint(condition=models.Q(('parent', models.F('id')), _negated=True), name='notes_folder_not_own_parent'),
        ),
        migrations.AddIndex(
            model_name='note',
            index=models.Index(fields=['folder', '-updated_at'], name='note_folder_recent'),
        ),
        migrations.AddIndex(
            model_name='note',
            index=models.Index(fields=['owner', 'visibility'], name='note_owner_visibility'),
        ),
        migrations.AddIndex(
            model_name='note',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search'], name='note_search'),
        ),
        migrations.AddConstraint(
            model_name='note',
            constraint=models.CheckConstraint(condition=models.Q(('visibility', 'shared'), ('owner__isnull', False), _connector='OR'), name='notes_note_private_has_owner'),
        ),
        migrations.AddIndex(
            model_name='notepage',
            index=models.Index(fields=['note', 'ordinal'], name='notepage_note_order'),
        ),
        migrations.AddIndex(
            model_name='notepage',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search'], name='notepage_search'),
        ),
    ]
