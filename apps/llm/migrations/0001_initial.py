"""The providers and models move here from the agent app, keeping their tables and rows.

State only: the tables `agent_provider` and `agent_modelconfig` (created by the agent app's
migrations 0001–0004) stay as they are, with their data, sequences, indexes and constraints;
from here on the state says they belong to `llm` (`db_table` keeps the old names). The agent
app's 0005 then drops the models from its state and points its foreign keys here.

The content types `agent.provider` / `agent.modelconfig` are renamed to `llm.*` (not created
anew), so the permissions, group and object grants (guardian) and admin log entries that
reference them stay attached. On a fresh database there is nothing to rename yet.
"""

import django.db.models.deletion
from decimal import Decimal

from django.db import migrations, models

import apps.core.crypto

MOVED = ("provider", "modelconfig")


def _rename_content_types(apps, from_label: str, to_label: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MOVED:
        source = ContentType.objects.filter(app_label=from_label, model=model).first()
        if source is None:
            continue  # a fresh database: post_migrate creates the content types later
        # A content type under the new label can only be a duplicate that post_migrate created
        # while the models were between the two apps (e.g. `migrate agent 0004` before
        # `migrate llm zero`): its permissions are the auto-created ones, the grants and the
        # history are on `source`. Drop the duplicate, keep the original (with its id).
        ContentType.objects.filter(app_label=to_label, model=model).delete()
        source.app_label = to_label
        source.save(update_fields=["app_label"])


def forwards(apps, schema_editor):
    _rename_content_types(apps, "agent", "llm")


def backwards(apps, schema_editor):
    _rename_content_types(apps, "llm", "agent")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("agent", "0004_model_probe"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="Provider",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("name", models.CharField(max_length=100, unique=True, verbose_name="name")),
                        ("kind", models.CharField(choices=[("openai", "OpenAI"), ("openai_compatible", "OpenAI-compatible"), ("ollama", "Ollama"), ("azure", "Azure OpenAI")], default="openai", max_length=20, verbose_name="type")),
                        ("base_url", models.URLField(blank=True, max_length=300, verbose_name="base URL")),
                        ("api_key", apps.core.crypto.EncryptedTextField(blank=True, default="", verbose_name="API key")),
                        ("enabled", models.BooleanField(default=True, verbose_name="enabled")),
                        ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created")),
                    ],
                    options={
                        "verbose_name": "model provider",
                        "verbose_name_plural": "model providers",
                        "db_table": "agent_provider",
                        "ordering": ["name"],
                    },
                ),
                migrations.CreateModel(
                    name="ModelConfig",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("model_id", models.CharField(max_length=200, verbose_name="model id")),
                        ("display_name", models.CharField(blank=True, max_length=200, verbose_name="display name")),
                        ("context_window", models.PositiveIntegerField(default=128000, verbose_name="context window (tokens)")),
                        ("input_price_per_million", models.DecimalField(decimal_places=4, default=Decimal("0"), max_digits=10, verbose_name="input price per million tokens")),
                        ("output_price_per_million", models.DecimalField(decimal_places=4, default=Decimal("0"), max_digits=10, verbose_name="output price per million tokens")),
                        ("supports_tools", models.BooleanField(default=True, verbose_name="supports tools")),
                        ("supports_vision", models.BooleanField(default=False, verbose_name="supports vision")),
                        ("supports_reasoning", models.BooleanField(default=False, verbose_name="reasoning model")),
                        ("probe_failed", models.BooleanField(default=False, verbose_name="capability probe failed")),
                        ("probed_at", models.DateTimeField(blank=True, null=True, verbose_name="last probed")),
                        ("probe_error", models.CharField(blank=True, help_text="Why the last capability probe failed or what it found (never contains the key).", max_length=300, verbose_name="probe result")),
                        ("provider", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="models", to="llm.provider")),
                    ],
                    options={
                        "verbose_name": "model",
                        "verbose_name_plural": "models",
                        "db_table": "agent_modelconfig",
                        "ordering": ["provider__name", "model_id"],
                        "constraints": [models.UniqueConstraint(fields=("provider", "model_id"), name="agent_model_per_provider")],
                    },
                ),
            ],
        ),
        migrations.RunPython(forwards, backwards, elidable=False),
    ]
