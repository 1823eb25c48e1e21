"""Demo Aufgaben for "Kanzlei Berger & Partner": boards, the office's statuses, realistic tasks."""

import datetime as dt

from django.utils import timezone

from apps.accounts.principal import Principal
from apps.clients.demo import demo_clients
from apps.core.inputs import build
from apps.tasks import services
from apps.tasks.contracts import BoardCreate, FiledTask, TaskCreate
from apps.tasks.models import Board, TaskStatus

STATUSES = [
    ("offen", "Offen", "open"),
    ("in_arbeit", "In Arbeit", "in_progress"),
    ("warten_auf_mandant", "Warten auf Mandant", "waiting"),
    ("wiedervorlage", "Wiedervorlage", "waiting"),
    ("erledigt", "Erledigt", "done"),
]

# (board, title, assignee, status, priority, due in days, client number)
TASKS = [
    ("Steuern", "Einkommensteuererklärung 2025 Familie Hoffmann vorbereiten", "anna", "offen", "high", 12, "10001"),
    ("Steuern", "Belege für Umsatzsteuer-Voranmeldung November anfordern (Bäckerei Schulz)", "markus", "warten_auf_mandant", "normal", 5, "10002"),
    ("Steuern", "Einspruch gegen Bescheid 2023 Meier GmbH prüfen", "anna", "in_arbeit", "urgent", 3, "10003"),
    ("Steuern", "Lohnsteuer-Anmeldung Dezember Autohaus König", "giulia", "offen", "normal", 10, "10004"),
    ("Steuern", "Grundsteuererklärung Nachtrag Weber einreichen", "tom", "wiedervorlage", "low", None, "10007"),
    ("Steuern", "Jahresabschluss 2025 Schreinerei Vogel: Inventurliste anfordern", "markus", "offen", "high", 30, "10005"),
    ("Kanzlei", "Fortbildung Datenschutz für alle Mitarbeitenden planen", "anna", "offen", "normal", 45, None),
    ("Kanzlei", "DATEV-Update auf allen Arbeitsplätzen einspielen", "tom", "erledigt", "normal", -2, None),
    ("Kanzlei", "Mandantenrundschreiben Jahreswechsel entwerfen", "giulia", "in_arbeit", "normal", 14, None),
]  # fmt: skip


def load(office) -> None:
    for order, (key, name, category) in enumerate(STATUSES):
        TaskStatus.objects.get_or_create(
            key=key, defaults={"name": name, "category": category, "sort_order": order}
        )
    admin = Principal.for_user(office.admin)
    boards = {
        name: services.create_board(admin, build(BoardCreate, name=name)) for name in ("Steuern", "Kanzlei")
    }
    anna = Principal.for_user(office.users["anna"])
    boards["Privat"] = services.create_board(
        anna, build(BoardCreate, name="Meine Notizen zu Mandaten", visibility=Board.Visibility.PRIVATE)
    )
    today = timezone.localdate()
    clients = demo_clients(office)
    for board, title, who, status, priority, due_in, client in TASKS:
        task = build(
            FiledTask,
            title=title,
            board_id=boards[board].pk,
            status_key=status,
            assignee_id=office.users[who].pk,
            priority=priority,
            due_date=today + dt.timedelta(days=due_in) if due_in is not None else None,
            client_id=clients[client].pk if client else None,
        )
        services.create_task(admin, task)
    services.create_task(
        anna,
        build(
            TaskCreate,
            title="Rückruf Frau Hoffmann wegen Kinderbetreuungskosten",
            board_id=boards["Privat"].pk,
            client_id=clients["10001"].pk,
        ),
    )
    office.extra["boards"] = boards
