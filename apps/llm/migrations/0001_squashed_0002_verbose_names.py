# Squashed on 2026-12-01: 0001_initial … 0002_verbose_names,
# made anew by makemigrations, plus the operations a new database still needs (extensions,
# functions, seed rows). Data fixes for rows of older installations are gone: an
# installation that applied all the replaced migrations takes this one as applied.

import apps.core.crypto
import django.db.models.deletion
from decimal import Decimal
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('llm', '0001_initial'),
        ('llm', '0002_verbose_names'),
    ]

    dependencies = [
    ]

    operations = [
        migrations.CreateModel(
            name='Provider',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                ('name', models.CharField(max_length=100, unique=True, verbose_name='name')),
                ('kind', models.CharField(choices=[('openai', 'OpenAI'), ('openai_compatible', 'OpenAI-compatible'), ('ollama', 'Ollama'), ('azure', 'Azure OpenAI')], default='openai', max_length=20, verbose_name='type')),
                ('base_url', models.URLField(blank=True, max_length=300, verbose_name='base URL')),
                ('api_key', apps.core.crypto.EncryptedTextField(blank=True, default='', verbose_name='API key')),
                ('enabled', models.BooleanField(default=True, verbose_name='enabled')),
            ],
            options={
                'verbose_name': 'model provider',
                'verbose_name_plural': 'model providers',
                'db_table': 'agent_provider',
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='ModelConfig',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('model_id', models.CharField(max_length=200, verbose_name='model id')),
                ('display_name', models.CharField(blank=True, max_length=200, verbose_name='display name')),
                ('context_window', models.PositiveIntegerField(default=128000, verbose_name='context window (tokens)')),
                ('input_price_per_million', models.DecimalField(decimal_places=4, default=Decimal('0'), max_digits=10, verbose_name='input price per million tokens')),
                ('output_price_per_million', models.DecimalField(decimal_places=4, default=Decimal('0'), max_digits=10, verbose_name='output price per million tokens')),
                ('supports_tools', models.BooleanField(default=True, verbose_name='supports tools')),
                ('supports_vision', models.BooleanField(default=False, verbose_name='supports vision')),
                ('supports_reasoning', models.BooleanField(default=False, verbose_name='reasoning model')),
                ('probe_failed', models.BooleanField(default=False, verbose_name='capability probe failed')),
                ('probed_at', models.DateTimeField(blank=True, null=True, verbose_name='last probed')),
                ('probe_error', models.CharField(blank=True, help_text='Why the last capability probe failed or what it found (never contains the key).', max_length=300, verbose_name='probe result')),
                ('provider', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='models', to='llm.provider', verbose_name='provider')),
            ],
            options={
                'verbose_name': 'model',
                'verbose_name_plural': 'models',
                'db_table': 'agent_modelconfig',
                'ordering': ['provider__name', 'model_id'],
                'constraints': [models.UniqueConstraint(fields=('provider', 'model_id'), name='agent_model_per_provider')],
            },
        ),
    ]
