"""Providers and models belong to the model layer now (`apps.llm`, see its 0001): state only.

The agent's foreign keys keep their columns and database constraints (they already reference
the unchanged tables `agent_modelconfig` / `agent_provider`); only the state learns that they
point to `llm.ModelConfig`. The many-to-many table `agent_moapreset_reference_models` keeps its
name and its `modelconfig_id` column.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("agent", "0004_model_probe"),
        ("llm", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name="moapreset",
                    name="aggregator",
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="moa_aggregations", to="llm.modelconfig", verbose_name="aggregator"),
                ),
                migrations.AlterField(
                    model_name="moapreset",
                    name="reference_models",
                    field=models.ManyToManyField(related_name="moa_references", to="llm.modelconfig", verbose_name="reference models"),
                ),
                migrations.AlterField(
                    model_name="run",
                    name="model_config",
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to="llm.modelconfig"),
                ),
                migrations.AlterField(
                    model_name="inferenceusage",
                    name="model_config",
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to="llm.modelconfig"),
                ),
                migrations.DeleteModel(name="ModelConfig"),
                migrations.DeleteModel(name="Provider"),
            ],
        ),
    ]
