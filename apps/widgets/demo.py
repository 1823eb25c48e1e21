"""Demo widget for the demo admin: an office notice. (The Fristen figures are not a widget: the
dashboard's "Heute" counts them live from the Fristenkontrolle.)"""

from apps.accounts.principal import Principal
from apps.widgets import services


def load(office) -> None:
    admin = Principal.for_user(office.admin)
    services.create_widget(
        admin,
        title="Kanzlei-Hinweis",
        data="Freitag ab 13 Uhr geschlossen: Team-Fortbildung Datenschutz. Fristen vorher prüfen!",
    )
