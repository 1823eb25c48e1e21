"""Demo widget for the demo admin: an office notice. (The Fristen figures are not a widget: the
dashboard's "Heute" counts them live from the Fristenkontrolle.)"""

from apps.accounts.principal import Principal
from apps.core.inputs import build
from apps.widgets import services
from apps.widgets.contracts import WidgetCreate


def load(office) -> None:
    admin = Principal.for_user(office.admin)
    notice = "Freitag ab 13 Uhr geschlossen: Team-Fortbildung Datenschutz. Fristen vorher prüfen!"
    services.create_widget(admin, build(WidgetCreate, title="Kanzlei-Hinweis", latest_data=notice))
