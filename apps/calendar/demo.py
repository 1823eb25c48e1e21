"""Demo Kalender for "Kanzlei Berger & Partner": a month of appointments (Mandantengespräche, a
weekly team meeting, a Finanzamt appointment) and a handful of Fristen, relative to today, each on a
working day, with a responsible person, a deputy and its default Vorfrist."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from apps.accounts.principal import Principal
from apps.calendar import services
from apps.calendar.contracts import EventCreate
from apps.clients.demo import demo_clients
from apps.core.inputs import build
from apps.deadlines.compute import shift_to_working_day

# (days from today, hour, minutes, title, who, location, client number)
APPOINTMENTS = [
    (
        1,
        10,
        60,
        "Mandantengespräch Familie Hoffmann: Einkommensteuer 2025",
        "anna",
        "Besprechungsraum 1",
        "10001",
    ),
    (2, 14, 45, "Erstgespräch Gründung Café Lindner", "markus", "Besprechungsraum 2", "10006"),
    (4, 9, 90, "Jahresgespräch Meier GmbH", "anna", "Meier GmbH, Industriestr. 12", "10003"),
    (8, 11, 30, "Videocall Autohaus König: Lohnabrechnung", "giulia", "", "10004"),
    (
        9,
        8,
        120,
        "Termin beim Finanzamt München: Betriebsprüfung Schreinerei Vogel",
        "markus",
        "Finanzamt München",
        "10005",
    ),
    (
        15,
        15,
        60,
        "Mandantengespräch Bäckerei Schulz: Kassenführung",
        "tom",
        "Besprechungsraum 1",
        "10002",
    ),
    (22, 10, 60, "Mandantengespräch Weber: Grundsteuer", "giulia", "Telefon", "10007"),
]


def _at(day: dt.date, hour: int, tz) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour), tzinfo=tz)


def load(office) -> None:
    admin = Principal.for_user(office.admin)
    tz = admin.time_zone
    today = timezone.now().astimezone(tz).date()
    users = office.users
    clients = demo_clients(office)
    for days, hour, minutes, title, who, location, client in APPOINTMENTS:
        start = _at(today + dt.timedelta(days=days), hour, tz)
        services.create_event(
            admin,
            build(
                EventCreate,
                title=title,
                start=start.isoformat(),
                end=(start + dt.timedelta(minutes=minutes)).isoformat(),
                location=location,
                client_id=clients[client].pk,
                attendee_ids=[users[who].pk],
                remind_minutes_before=30,
                **(
                    {"conference_url": "https://meet.example.com/koenig-lohn", "conference_provider": "Teams"}
                    if "Videocall" in title
                    else {}
                ),
            ),
        )
    monday = today + dt.timedelta(days=(7 - today.weekday()) % 7)
    services.create_event(
        admin,
        build(
            EventCreate,
            title="Team-Meeting Kanzlei",
            start=_at(monday, 9, tz).isoformat(),
            end=(_at(monday, 9, tz) + dt.timedelta(minutes=45)).isoformat(),
            location="Besprechungsraum 1",
            rrule="FREQ=WEEKLY;BYDAY=MO;COUNT=12",
            attendee_ids=[u.pk for u in users.values()],
            remind_minutes_before=15,
        ),
    )
    next_month_10th = (today.replace(day=1) + dt.timedelta(days=32)).replace(day=10)
    # (due, title, legal basis, criticality, client, origin, responsible, deputy, rule)
    deadlines = [
        (next_month_10th, "Umsatzsteuer-Voranmeldung Bäckerei Schulz", "§ 18 Abs. 1 UStG", "high", "10002", "USt-Kalender", "tom", "anna", ""),
        (today + dt.timedelta(days=5), "Einspruchsfrist Bescheid 2023 Meier GmbH", "§ 355 Abs. 1 AO", "critical", "10003", "Bescheid vom Finanzamt", "anna", "markus", "einspruch_ao"),
        (today + dt.timedelta(days=26), "Jahresabschluss 2025 Schreinerei Vogel einreichen", "§ 325 HGB", "normal", "10005", "Fristenkontrolle", "markus", "giulia", ""),
        (today + dt.timedelta(days=12), "Lohnsteuer-Anmeldung Autohaus König", "§ 41a EStG", "normal", "10004", "Lohn", "giulia", "tom", ""),
    ]  # fmt: skip
    for due, title, basis, criticality, client, label, who, deputy, rule in deadlines:
        # A Frist ends on a working day (§ 193 BGB, § 108 Abs. 3 AO): never a demo Frist on a Sunday.
        due, _unshifted, _why = shift_to_working_day(due)
        services.create_event(
            admin,
            build(
                EventCreate,
                title=title,
                kind="deadline",
                start=due.isoformat(),
                all_day=True,
                legal_basis=basis,
                criticality=criticality,
                client_id=clients[client].pk,
                source_label=label,
                remind_minutes_before=60 * 24 * 3,
                responsible_id=users[who].pk,
                deputy_id=users[deputy].pk,
                **({"rule_code": rule} if rule else {}),
            ),
        )
    anna = Principal.for_user(users["anna"])
    services.create_event(
        anna,
        build(
            EventCreate,
            title="Zahnarzt (privat)",
            start=_at(today + dt.timedelta(days=3), 16, tz).isoformat(),
            visibility="private",
        ),
    )
