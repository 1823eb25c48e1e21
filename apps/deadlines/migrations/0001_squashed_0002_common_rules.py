# Squashed on 2026-12-01: 0001_initial … 0002_common_rules,
# made anew by makemigrations, plus the operations a new database still needs (extensions,
# functions, seed rows). Data fixes for rows of older installations are gone: an
# installation that applied all the replaced migrations takes this one as applied.

from django.db import migrations, models


from django.db import migrations

FGO_SHIFT = "§ 54 Abs. 2 FGO i. V. m. § 222 Abs. 2 ZPO"
VWGO_SHIFT = "§ 57 Abs. 2 VwGO i. V. m. § 222 Abs. 2 ZPO"
TAX_FICTION = "§ 122 Abs. 2 Nr. 1 AO"

# code, name, trigger kind, amount, unit, legal basis, posting fiction, fiction norm, shift norm, Vorfrist days
RULES = [
    ("einspruch_ao", "Einspruchsfrist", "bekanntgabe", 1, "months", "§ 355 Abs. 1 AO", True, "", "", 7),
    ("klage_fgo", "Klagefrist (Finanzgericht)", "bekanntgabe", 1, "months", "§ 47 Abs. 1 FGO", True, TAX_FICTION, FGO_SHIFT, 7),
    ("nzb_fgo", "Frist der Nichtzulassungsbeschwerde (BFH)", "zustellung", 1, "months", "§ 116 Abs. 2 FGO", False, "", FGO_SHIFT, 7),
    ("nzb_begruendung_fgo", "Begründungsfrist der Nichtzulassungsbeschwerde (BFH)", "zustellung", 2, "months", "§ 116 Abs. 3 FGO", False, "", FGO_SHIFT, 14),
    ("revision_fgo", "Revisionsfrist (BFH)", "zustellung", 1, "months", "§ 120 Abs. 1 FGO", False, "", FGO_SHIFT, 7),
    ("revisionsbegruendung_fgo", "Revisionsbegründungsfrist (BFH)", "zustellung", 2, "months", "§ 120 Abs. 2 FGO", False, "", FGO_SHIFT, 14),
    ("berufung_zpo", "Berufungsfrist", "zustellung", 1, "months", "§ 517 ZPO", False, "", "", 7),
    ("berufungsbegruendung_zpo", "Berufungsbegründungsfrist", "zustellung", 2, "months", "§ 520 Abs. 2 ZPO", False, "", "", 14),
    ("revision_zpo", "Revisionsfrist", "zustellung", 1, "months", "§ 548 ZPO", False, "", "", 7),
    ("revisionsbegruendung_zpo", "Revisionsbegründungsfrist", "zustellung", 2, "months", "§ 551 Abs. 2 ZPO", False, "", "", 14),
    ("einspruch_versaeumnisurteil_zpo", "Einspruchsfrist (Versäumnisurteil)", "zustellung", 2, "weeks", "§ 339 Abs. 1 ZPO", False, "", "", 3),
    ("sofortige_beschwerde_zpo", "Frist der sofortigen Beschwerde", "zustellung", 2, "weeks", "§ 569 Abs. 1 ZPO", False, "", "", 3),
    ("widerspruch_vwgo", "Widerspruchsfrist", "bekanntgabe", 1, "months", "§ 70 Abs. 1 VwGO", True, "§ 41 Abs. 2 VwVfG", VWGO_SHIFT, 7),
    ("klage_vwgo", "Klagefrist (Verwaltungsgericht)", "zustellung", 1, "months", "§ 74 Abs. 1 VwGO", True, "§ 4 Abs. 2 VwZG", VWGO_SHIFT, 7),
    ("widerspruch_sgg", "Widerspruchsfrist (Sozialverwaltung)", "bekanntgabe", 1, "months", "§ 84 Abs. 1 SGG", True, "§ 37 Abs. 2 SGB X", "§ 64 Abs. 3 SGG", 7),
    ("klage_sgg", "Klagefrist (Sozialgericht)", "bekanntgabe", 1, "months", "§ 87 Abs. 1 SGG", True, "§ 37 Abs. 2 SGB X", "§ 64 Abs. 3 SGG", 7),
    ("einspruch_bussgeld_owig", "Einspruchsfrist (Bußgeldbescheid)", "zustellung", 2, "weeks", "§ 67 Abs. 1 OWiG", False, "", "§ 46 Abs. 1 OWiG i. V. m. § 43 Abs. 2 StPO", 3),
    ("kuendigungsschutzklage", "Klagefrist (Kündigungsschutzklage)", "bekanntgabe", 3, "weeks", "§ 4 Satz 1 KSchG", False, "", "§ 222 Abs. 2 ZPO", 5),
]


def add_rules(apps, schema_editor):
    DeadlineRule = apps.get_model("deadlines", "DeadlineRule")
    for code, name, kind, amount, unit, basis, fiction, fiction_basis, shift_basis, pre_days in RULES:
        DeadlineRule.objects.get_or_create(
            code=code,
            defaults={
                "name": name,
                "trigger_kind": kind,
                "amount": amount,
                "unit": unit,
                "legal_basis": basis,
                "posting_fiction": fiction,
                "fiction_basis": fiction_basis,
                "shift_basis": shift_basis,
                "default_pre_deadline_days": pre_days,
                "default_criticality": "critical",
                "active": True,
            },
        )


def remove_rules(apps, schema_editor):
    apps.get_model("deadlines", "DeadlineRule").objects.filter(code__in=[r[0] for r in RULES]).delete()


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('deadlines', '0001_initial'),
        ('deadlines', '0002_common_rules'),
    ]

    dependencies = [
    ]

    operations = [
        migrations.CreateModel(
            name='DeadlineRule',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('code', models.SlugField(max_length=60, unique=True, verbose_name='code')),
                ('name', models.CharField(help_text='As it reads in an explanation: "Einspruchsfrist".', max_length=120, verbose_name='name')),
                ('trigger_kind', models.CharField(choices=[('bekanntgabe', 'Notification (Bekanntgabe)'), ('zustellung', 'Service (Zustellung)'), ('verkuendung', 'Pronouncement (Verkündung)')], default='bekanntgabe', max_length=20, verbose_name='triggering event')),
                ('amount', models.PositiveSmallIntegerField(verbose_name='duration')),
                ('unit', models.CharField(choices=[('days', 'days'), ('weeks', 'weeks'), ('months', 'months'), ('years', 'years')], max_length=10, verbose_name='unit')),
                ('legal_basis', models.CharField(max_length=120, verbose_name='legal basis')),
                ('posting_fiction', models.BooleanField(default=False, help_text='A posted act counts as notified on the fourth day after posting (§ 122 Abs. 2 AO, § 41 Abs. 2 VwVfG).', verbose_name='posting fiction applies')),
                ('fiction_basis', models.CharField(blank=True, help_text='Empty: § 122 Abs. 2 Nr. 1 AO for tax rules, § 41 Abs. 2 VwVfG otherwise.', max_length=120, verbose_name='norm of the posting fiction')),
                ('shift_basis', models.CharField(blank=True, help_text='Empty: § 108 Abs. 3 AO for tax rules, § 222 Abs. 2 ZPO for court procedure, § 193 BGB otherwise.', max_length=120, verbose_name='norm of the weekend/holiday shift')),
                ('default_pre_deadline_days', models.PositiveSmallIntegerField(default=7, verbose_name='default Vorfrist (days before)')),
                ('default_criticality', models.CharField(choices=[('low', 'Low'), ('normal', 'Normal'), ('high', 'High'), ('critical', 'Critical')], default='high', max_length=10, verbose_name='default criticality')),
                ('active', models.BooleanField(default=True, verbose_name='active')),
            ],
            options={
                'verbose_name': 'deadline rule',
                'verbose_name_plural': 'deadline rules',
                'ordering': ['name', 'code'],
            },
        ),
        migrations.RunPython(add_rules, remove_rules),
    ]
