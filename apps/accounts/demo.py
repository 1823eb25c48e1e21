"""Demo staff of "Kanzlei Berger & Partner", a tax advisers' office."""

from apps.accounts.models import ServicePrincipal, User
from apps.accounts.services import create_service_principal

# Safe to run on every start (get-or-create), so later demo loaders always find these people.
IDEMPOTENT = True

STAFF = [
    ("anna", "anna.berger@kanzlei.example", "Anna Berger", "de"),
    ("markus", "markus.klein@kanzlei.example", "Markus Klein", "de"),
    ("giulia", "giulia.romano@kanzlei.example", "Giulia Romano", "it"),
    ("tom", "tom.fischer@kanzlei.example", "Tom Fischer", "en"),
]


def load(office) -> None:
    for key, email, name, language in STAFF:
        user, created = User.objects.get_or_create(
            email=email, defaults={"full_name": name, "language": language}
        )
        if created:
            # Demo staff share the admin's first-start password so each view can be tried out.
            if office.password:
                user.set_password(office.password)
            else:
                user.set_unusable_password()
            user.save()
        office.users[key] = user
    office.extra["morning_briefing"] = create_service_principal(
        "Morgen-Briefing",
        ServicePrincipal.Kind.AUTOMATION,
        "Fasst jeden Morgen Fristen und Aufgaben zusammen.",
    )
    office.extra["team_room"] = create_service_principal(
        "Team-Raum Steuern", ServicePrincipal.Kind.TEAM_ROOM, "Gemeinsamer Raum des Steuer-Teams."
    )
