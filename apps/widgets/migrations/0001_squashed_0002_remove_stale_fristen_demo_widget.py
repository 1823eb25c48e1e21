# Squashed on 2026-12-01: 0001_initial … 0002_remove_stale_fristen_demo_widget,
# made anew by makemigrations, plus the operations a new database still needs (extensions,
# functions, seed rows). Data fixes for rows of older installations are gone: an
# installation that applied all the replaced migrations takes this one as applied.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('widgets', '0001_initial'),
        ('widgets', '0002_remove_stale_fristen_demo_widget'),
    ]

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Widget',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('slug', models.SlugField(max_length=80, verbose_name='slug')),
                ('title', models.CharField(max_length=120, verbose_name='title')),
                ('description', models.CharField(blank=True, max_length=500, verbose_name='description')),
                ('type', models.CharField(choices=[('stats', 'Key figures'), ('list', 'List'), ('table', 'Table'), ('notice', 'Notice'), ('sections', 'Sections')], max_length=10, verbose_name='type')),
                ('definition', models.JSONField(default=dict, verbose_name='definition')),
                ('definition_inferred', models.BooleanField(default=False, verbose_name='layout derived from the data')),
                ('data', models.JSONField(blank=True, null=True, verbose_name='latest data')),
                ('data_updated_at', models.DateTimeField(blank=True, null=True, verbose_name='data updated')),
                ('show_on_dashboard', models.BooleanField(default=True, verbose_name='show on the dashboard')),
                ('position', models.IntegerField(default=0, verbose_name='position')),
                ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='widgets', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'widget',
                'verbose_name_plural': 'widgets',
                'ordering': ['position', 'id'],
                'indexes': [models.Index(fields=['owner', 'position'], name='widget_owner_position')],
                'constraints': [models.UniqueConstraint(fields=('owner', 'slug'), name='widgets_slug_per_owner')],
            },
        ),
    ]
