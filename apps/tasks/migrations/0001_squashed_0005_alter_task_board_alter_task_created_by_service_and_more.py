# Squashed on 2026-12-01: 0001_initial … 0005_alter_task_board_alter_task_created_by_service_and_more,
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
        ('tasks', '0001_initial'),
        ('tasks', '0002_task_search_task_task_search'),
        ('tasks', '0003_task_client'),
        ('tasks', '0004_task_case'),
        ('tasks', '0005_alter_task_board_alter_task_created_by_service_and_more'),
    ]

    dependencies = [
        ('accounts', '0001_squashed_0002_user_mute_toasts'),
        ('clients', '0001_squashed_0004_numbering_setting'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='TaskStatus',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.SlugField(max_length=40, unique=True, verbose_name='key')),
                ('name', models.CharField(max_length=60, verbose_name='name')),
                ('category', models.CharField(choices=[('open', 'Open'), ('in_progress', 'In progress'), ('waiting', 'Waiting'), ('done', 'Done')], max_length=16, verbose_name='category')),
                ('sort_order', models.IntegerField(default=0, verbose_name='order')),
            ],
            options={
                'verbose_name': 'task status',
                'verbose_name_plural': 'task statuses',
                'ordering': ['sort_order', 'id'],
            },
        ),
        migrations.CreateModel(
            name='Board',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=120, verbose_name='name')),
                ('visibility', models.CharField(choices=[('shared', 'Shared with everyone'), ('restricted', 'Shared with selected people'), ('private', 'Private')], default='shared', max_length=16, verbose_name='visibility')),
                ('sort_order', models.IntegerField(default=0, verbose_name='order')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('owner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='owned_boards', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'board',
                'verbose_name_plural': 'boards',
                'ordering': ['sort_order', 'name', 'id'],
                'permissions': [('view_board_shared', 'Can see a board shared with them')],
            },
        ),
        migrations.CreateModel(
            name='Task',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('title', models.CharField(max_length=300, verbose_name='title')),
                ('description', models.TextField(blank=True, verbose_name='description')),
                ('priority', models.CharField(choices=[('low', 'Low'), ('normal', 'Normal'), ('high', 'High'), ('urgent', 'Urgent')], default='normal', max_length=8, verbose_name='priority')),
                ('due_date', models.DateField(blank=True, null=True, verbose_name='due')),
                ('follow_up_date', models.DateField(blank=True, null=True, verbose_name='follow-up')),
                ('position', models.IntegerField(default=0, verbose_name='position')),
                ('source_type', models.CharField(choices=[('manual', 'Created by hand'), ('agent', 'Copilot'), ('team_chat', 'Team chat'), ('document', 'Document'), ('email', 'E-mail'), ('api', 'API')], default='manual', max_length=16, verbose_name='origin')),
                ('source_id', models.CharField(blank=True, max_length=200, null=True, verbose_name='origin id')),
                ('source_label', models.CharField(blank=True, max_length=200, verbose_name='origin label')),
                ('source_url', models.CharField(blank=True, max_length=500, verbose_name='origin link')),
                ('source_context_snapshot', models.JSONField(blank=True, default=dict, verbose_name='origin context')),
                ('search', models.GeneratedField(db_persist=True, expression=django.contrib.postgres.search.SearchVector('title', 'description', 'source_label', config='german'), output_field=django.contrib.postgres.search.SearchVectorField())),
                ('assignee', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='assigned_tasks', to=settings.AUTH_USER_MODEL)),
                ('board', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tasks', to='tasks.board', verbose_name='board')),
                ('case', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='tasks', to='clients.case', verbose_name='case')),
                ('client', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='tasks', to='clients.client', verbose_name='client')),
                ('created_by_service', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='accounts.serviceprincipal', verbose_name='created through')),
                ('erstellt_von', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='created_tasks', to=settings.AUTH_USER_MODEL)),
                ('status', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='tasks', to='tasks.taskstatus', verbose_name='status')),
            ],
            options={
                'verbose_name': 'task',
                'verbose_name_plural': 'tasks',
                'ordering': ['position', 'id'],
            },
        ),
        migrations.CreateModel(
            name='Comment',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('author_type', models.CharField(choices=[('user', 'Person'), ('agent', 'Copilot'), ('system', 'System')], max_length=8)),
                ('author_name', models.CharField(max_length=150)),
                ('body', models.TextField()),
                ('body_hash', models.CharField(max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('author', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('task', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='comments', to='tasks.task')),
            ],
            options={
                'verbose_name': 'comment',
                'verbose_name_plural': 'comments',
                'ordering': ['created_at', 'id'],
            },
        ),
        migrations.AddConstraint(
            model_name='board',
            constraint=models.CheckConstraint(condition=models.Q(('visibility', 'shared'), ('owner__isnull', False), _connector='OR'), name='tasks_board_private_has_owner'),
        ),
        migrations.AddConstraint(
            model_name='comment',
            constraint=models.UniqueConstraint(condition=models.Q(('author_type', 'agent')), fields=('task', 'body_hash'), name='tasks_agent_comment_once'),
        ),
        migrations.AddIndex(
            model_name='task',
            index=models.Index(fields=['board', 'status', 'position'], name='task_board_column'),
        ),
        migrations.AddIndex(
            model_name='task',
            index=models.Index(fields=['assignee', 'due_date'], name='task_assignee_due'),
        ),
        migrations.AddIndex(
            model_name='task',
            index=models.Index(fields=['due_date'], name='task_due'),
        ),
        migrations.AddIndex(
            model_name='task',
            index=django.contrib.postgres.indexes.GinIndex(fields=['search'], name='task_search'),
        ),
        migrations.AddConstraint(
            model_name='task',
            constraint=models.UniqueConstraint(condition=models.Q(('source_type', 'team_chat')), fields=('source_id',), name='tasks_team_chat_source_unique'),
        ),
        migrations.AddConstraint(
            model_name='task',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('source_type', 'team_chat'), _negated=True), ('source_id__isnull', False), _connector='OR'), name='tasks_team_chat_source_required'),
        ),
    ]
