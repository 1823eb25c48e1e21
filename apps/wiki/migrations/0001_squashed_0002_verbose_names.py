# Squashed on 2026-12-01: 0001_initial … 0002_verbose_names,
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
        ('wiki', '0001_initial'),
        ('wiki', '0002_verbose_names'),
    ]

    dependencies = [
        ('accounts', '0001_squashed_0002_user_mute_toasts'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='WikiPage',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('slug', models.SlugField(max_length=120, unique=True, verbose_name='slug')),
                ('title', models.CharField(max_length=200, verbose_name='title')),
                ('body', models.TextField(blank=True, verbose_name='text (Markdown)')),
                ('search', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.CombinedSearchVector(django.contrib.postgres.search.SearchVector('title', config='german', weight='A'), '||', django.contrib.postgres.search.SearchVector('body', config='german', weight='B'), django.contrib.postgres.search.SearchConfig('german')), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='created by')),
                ('updated_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='updated by')),
            ],
            options={
                'verbose_name': 'wiki page',
                'verbose_name_plural': 'wiki pages',
                'ordering': ['title', 'id'],
            },
        ),
        migrations.CreateModel(
            name='WikiProposal',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                ('slug', models.SlugField(max_length=120, verbose_name='slug')),
                ('title', models.CharField(max_length=200, verbose_name='proposed title')),
                ('body', models.TextField(blank=True, verbose_name='proposed text')),
                ('comment', models.CharField(blank=True, max_length=500, verbose_name='why')),
                ('surface', models.CharField(blank=True, max_length=16, verbose_name='surface')),
                ('run_id', models.CharField(blank=True, max_length=64, verbose_name='agent run')),
                ('session_id', models.CharField(blank=True, max_length=64, verbose_name='chat session')),
                ('status', models.CharField(choices=[('pending', 'Pending'), ('accepted', 'Accepted'), ('rejected', 'Rejected')], db_index=True, default='pending', max_length=10, verbose_name='status')),
                ('decided_at', models.DateTimeField(blank=True, null=True, verbose_name='decided')),
                ('reason', models.TextField(blank=True, verbose_name='reason')),
                ('page', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='proposals', to='wiki.wikipage')),
                ('proposed_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('proposed_by_service', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='accounts.serviceprincipal')),
                ('reviewer', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'wiki proposal',
                'verbose_name_plural': 'wiki proposals',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='WikiRevision',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                ('number', models.PositiveIntegerField(verbose_name='number')),
                ('title', models.CharField(max_length=200, verbose_name='title')),
                ('body', models.TextField(blank=True, verbose_name='text (Markdown)')),
                ('comment', models.CharField(blank=True, max_length=500, verbose_name='comment')),
                ('author', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('page', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='revisions', to='wiki.wikipage')),
                ('proposal', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='wiki.wikiproposal')),
            ],
            options={
                'verbose_name': 'wiki revision',
                'verbose_name_plural': 'wiki revisions',
                'ordering': ['page', '-number'],
            },
        ),
        migrations.AddField(
            model_name='wikiproposal',
            name='base_revision',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='wiki.wikirevision'),
        ),
        migrations.AddField(
            model_name='wikipage',
            name='current_revision',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='wiki.wikirevision'),
        ),
        migrations.AddConstraint(
            model_name='wikirevision',
            constraint=models.UniqueConstraint(fields=('page', 'number'), name='wiki_revision_number_once'),
        ),
        migrations.AddConstraint(
            model_name='wikiproposal',
            constraint=models.CheckConstraint(condition=models.Q(('status', 'pending'), ('decided_at__isnull', False), _connector='OR'), name='wiki_proposal_decided_has_time'),
        ),
        migrations.AddIndex(
            model_name='wikipage',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search'], name='wiki_page_search'),
        ),
    ]
