"""Demo widgets for the demo admin: open Fristen at a glance, and an office notice."""

from apps.accounts.principal import Principal
from apps.widgets import services


def load(office) -> None:
    admin = Principal.for_user(office.admin)
    services.create_widget(
        admin,
        title="Offene Fristen",
        description="Fristen der Kanzlei, wie sie das Morgen-Briefing zusammenfasst.",
        definition={
            "type": "stats",
            "items": [
                {"label": "Diese Woche", "key": "woche", "tone": "warning"},
                {"label": "Kritisch", "key": "kritisch", "tone": "critical"},
                {"label": "Insgesamt offen", "key": "offen"},
            ],
        },
        data={"woche": 3, "kritisch": 1, "offen": 7},
    )
    services.create_widget(
        admin,
        title="Kanzlei-Hinweis",
        data="Freitag ab 13 Uhr geschlossen: Team-Fortbildung Datenschutz. Fristen vorher prüfen!",
    )
