"""Demo Mandanten for "Kanzlei Berger & Partner": the clients the demo calendar and tasks talk
about, with client numbers, addresses and a few open cases (Akten).

Kalender and Aufgaben come before this app in INSTALLED_APPS but link their demo rows to these
clients, so they call `demo_clients(office)`, which loads them first; `load` skips what exists.
When the loader runs in its own turn, their rows exist: it links the demo case's own Frist and task
to it through the case page's linkers (`apps.clients.case_links`); Dokumente, loaded later, file
their Aktennotiz in the case themselves (`demo_cases`)."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.clients import case_links, office_settings, services
from apps.clients.contracts import CaseCreate, ClientCreate
from apps.clients.models import Case, Client
from apps.core.inputs import build
from apps.core.services import get_setting

# (number, name, kind, tax number, e-mail, phone, street, postal code, city, responsible)
CLIENTS = [
    ("10001", "Familie Hoffmann", "person", "143/215/50012", "hoffmann@example.de", "089 123456", "Lindenweg 4", "81245", "München", "anna"),
    ("10002", "Bäckerei Schulz GmbH", "company", "143/118/40021", "info@baeckerei-schulz.example", "089 223344", "Marktplatz 2", "85354", "Freising", "tom"),
    ("10003", "Meier GmbH", "company", "143/140/70033", "buchhaltung@meier-gmbh.example", "089 998877", "Industriestr. 12", "85748", "Garching", "anna"),
    ("10004", "Autohaus König", "company", "143/170/11104", "lohn@autohaus-koenig.example", "089 445566", "Dachauer Str. 200", "80992", "München", "giulia"),
    ("10005", "Schreinerei Vogel", "company", "143/190/22205", "vogel@schreinerei.example", "08141 7788", "Am Sägewerk 7", "82256", "Fürstenfeldbruck", "markus"),
    ("10006", "Café Lindner", "company", "", "hallo@cafe-lindner.example", "089 334455", "Schellingstr. 30", "80799", "München", "markus"),
    ("10007", "Familie Weber", "person", "143/220/33307", "weber.familie@example.de", "089 667788", "Rosenstr. 9", "82110", "Germering", "giulia"),
    ("10008", "Dr. Katharina Brandt", "person", "143/230/44408", "k.brandt@example.de", "089 112233", "Prinzregentenstr. 61", "81675", "München", "anna"),
]  # fmt: skip

# (client number, reference, subject, status)
CASES = [
    ("10001", "2026-0001", "Einkommensteuererklärung 2025", "open"),
    ("10002", "2026-0002", "Umsatzsteuer-Voranmeldungen 2026", "open"),
    ("10002", "2025-0014", "Kassennachschau 2025", "closed"),
    ("10003", "2026-0003", "Einspruch Körperschaftsteuerbescheid 2023", "open"),
    ("10004", "2026-0004", "Lohnbuchhaltung 2026", "open"),
    ("10005", "2026-0005", "Betriebsprüfung 2022–2024", "open"),
    ("10005", "2026-0006", "Jahresabschluss 2025", "open"),
    ("10007", "2026-0007", "Grundsteuerwerterklärung", "open"),
]


# The demo case whose Frist and task (matched by these words in their titles) are linked to it.
LINKED_CASE = "2026-0003"
LINKED_WORDS = {"deadlines": "Einspruchsfrist", "tasks": "Einspruch"}


def demo_cases(office) -> dict[str, Case]:
    """The demo cases by reference, loaded now if no loader did yet."""
    demo_clients(office)
    return {case.reference: case for case in Case.objects.filter(reference__in=[row[1] for row in CASES])}


def demo_clients(office) -> dict[str, Client]:
    """The demo clients by client number, loaded now if no loader did yet."""
    if "clients" not in office.extra:
        load(office)
    return office.extra["clients"]


def load(office) -> None:
    if "clients" in office.extra:
        _link_demo_case(office)
        return
    admin = Principal.for_user(office.admin)
    _name_the_office(admin)
    users = office.users
    ids = {c.client_number: c for c in Client.objects.filter(client_number__in=[row[0] for row in CLIENTS])}
    for number, name, kind, tax, email, phone, street, postal, city, who in CLIENTS:
        if number in ids:
            continue
        responsible = users.get(who)
        client = services.create_client(
            admin,
            build(
                ClientCreate,
                name=name,
                client_number=number,
                kind=kind,
                tax_number=tax,
                email=email,
                phone=phone,
                street=street,
                postal_code=postal,
                city=city,
                responsible_id=responsible.pk if responsible else None,
            ),
        )
        ids[number] = client
    office.extra["clients"] = ids
    taken = set(
        Case.objects.filter(reference__in=[row[1] for row in CASES]).values_list("reference", flat=True)
    )
    for number, reference, subject, status in CASES:
        if reference in taken:
            continue
        client = ids[number]
        services.create_case(
            admin,
            build(
                CaseCreate,
                client_id=client.pk,
                reference=reference,
                subject=subject,
                status=status,
                responsible_id=client.responsible_id,
            ),
        )


def _link_demo_case(office) -> None:
    """Link the demo case's own Frist and task to it (the rows of the apps loaded before)."""
    admin = Principal.for_user(office.admin)
    case = demo_cases(office).get(LINKED_CASE)
    if case is None:
        return
    for linker in case_links.linkers():
        words = LINKED_WORDS.get(linker.key)
        if words is None:
            continue
        for pk, label in linker.candidates(admin, case):
            if words in label:
                linker.link(admin, case, pk)
                break


OFFICE_NAME = "Kanzlei Berger & Partner"
OFFICE_ADDRESS = "Leopoldstraße 12\n80802 München"


def _name_the_office(admin: Principal) -> None:
    """The demo office's name and address (on the Fristenbuch reports), unless an admin set them."""
    if get_setting(office_settings.OFFICE_NAME) or admin.user is None or not admin.user.is_admin:
        return
    values = {**office_settings.current(), "office_name": OFFICE_NAME, "office_address": OFFICE_ADDRESS}
    office_settings.save(admin, build(office_settings.OfficeSettings, **values))
