# Squashed on 2026-12-01: 0001_initial … 0002_api_key_rate_window,
# made anew by makemigrations, plus the operations a new database still needs (extensions,
# functions, seed rows). Data fixes for rows of older installations are gone: an
# installation that applied all the replaced migrations takes this one as applied.

import django.contrib.postgres.fields
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('apikeys', '0001_initial'),
        ('apikeys', '0002_api_key_rate_window'),
    ]

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ApiKey',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('prefix', models.CharField(editable=False, max_length=16, unique=True, verbose_name='prefix')),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='created')),
                ('last_used_at', models.DateTimeField(blank=True, null=True, verbose_name='last used')),
                ('revoked_at', models.DateTimeField(blank=True, null=True, verbose_name='revoked')),
                ('name', models.CharField(max_length=100, verbose_name='name')),
                ('secret_hash', models.CharField(editable=False, max_length=64, verbose_name='secret hash')),
                ('scopes', django.contrib.postgres.fields.ArrayField(base_field=models.CharField(choices=[('tools:execute', "Execute tools as the key's creator (high privilege)"), ('memory:read', 'Read approved memory'), ('memory:write', 'Store memory (reviewed like manual memory)'), ('inference:execute', 'Stateless model inference passthrough'), ('notifications:read', 'Poll notifications (read-only)'), ('usage:read', 'Read subscription usage')], max_length=32), default=list, size=None, verbose_name='scopes')),
                ('expires_at', models.DateTimeField(blank=True, null=True, verbose_name='expires')),
                ('created_by', models.ForeignKey(help_text='The key acts as this user.', on_delete=django.db.models.deletion.CASCADE, related_name='api_keys', to=settings.AUTH_USER_MODEL, verbose_name='creator')),
                ('revoked_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='revoked by')),
            ],
            options={
                'verbose_name': 'API key',
                'verbose_name_plural': 'API keys',
                'ordering': ['-created_at'],
                'abstract': False,
            },
        ),
        migrations.CreateModel(
            name='RateWindow',
            fields=[
                ('api_key', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to='apikeys.apikey', verbose_name='API key')),
                ('started_at', models.DateTimeField(verbose_name='window started')),
                ('hits', models.PositiveIntegerField(verbose_name='requests in the window')),
            ],
            options={
                'verbose_name': 'rate-limit window',
                'verbose_name_plural': 'rate-limit windows',
            },
        ),
        migrations.CreateModel(
            name='DeviceToken',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('prefix', models.CharField(editable=False, max_length=16, unique=True, verbose_name='prefix')),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='created')),
                ('last_used_at', models.DateTimeField(blank=True, null=True, verbose_name='last used')),
                ('revoked_at', models.DateTimeField(blank=True, null=True, verbose_name='revoked')),
                ('device_name', models.CharField(max_length=100, verbose_name='device')),
                ('token_hash', models.CharField(editable=False, max_length=64, verbose_name='token hash')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='device_tokens', to=settings.AUTH_USER_MODEL, verbose_name='user')),
            ],
            options={
                'verbose_name': 'device token',
                'verbose_name_plural': 'device tokens',
                'ordering': ['-created_at'],
                'abstract': False,
            },
        ),
        migrations.AddConstraint(
            model_name='apikey',
            constraint=models.CheckConstraint(condition=models.Q(('scopes__contained_by', ['tools:execute', 'memory:read', 'memory:write', 'inference:execute', 'notifications:read', 'usage:read'])), name='apikeys_apikey_known_scopes'),
        ),
        migrations.AddIndex(
            model_name='devicetoken',
            index=models.Index(fields=['user', 'revoked_at'], name='apikeys_devtok_user_active'),
        ),
        # Counters need no crash safety (after a crash every window starts again), and writes
        # to an unlogged table commit without waiting for a WAL flush: one per API request.
        migrations.RunSQL(
            "ALTER TABLE apikeys_ratewindow SET UNLOGGED",
            reverse_sql="ALTER TABLE apikeys_ratewindow SET LOGGED",
        ),
    ]
