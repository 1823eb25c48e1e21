"""Demo wiki of "Kanzlei Berger & Partner": an office handbook, and one copilot proposal waiting
in the review queue."""

from apps.accounts.principal import Principal
from apps.core.inputs import build
from apps.wiki import proposals, services
from apps.wiki.contracts import WikiPageCreate

PAGES = [
    (
        "fristenkontrolle",
        "Fristenkontrolle",
        """Jede Frist wird am Tag des Eingangs im Kalender als **Frist** eingetragen, mit Rechtsgrundlage und verantwortlicher Person.

## Ablauf
1. Posteingang prüft Bescheide auf Einspruchsfristen (ein Monat ab Bekanntgabe, § 355 AO).
2. Die Bekanntgabe gilt am vierten Tag nach Aufgabe zur Post als erfolgt (§ 122 Abs. 2 AO).
3. Vorfrist eine Woche vor Ablauf als Aufgabe anlegen.
4. Erledigte Fristen im Kalender abhaken, nie löschen.

## Vertretung
Bei Abwesenheit übernimmt die im Kalender eingetragene Vertretung. Kritische Fristen werden zusätzlich im Team-Raum angekündigt.""",
    ),
    (
        "posteingang",
        "Posteingang",
        """Die Post wird täglich bis 10 Uhr geöffnet, gescannt und dem Mandanten zugeordnet.

- Bescheide: Eingangsstempel, Scan in die Mandantenakte, Frist eintragen (siehe Fristenkontrolle).
- Rechnungen der Kanzlei: an die Buchhaltung.
- Persönliche Post: ungeöffnet weitergeben.

Originale von Mandanten werden nach dem Scannen zurückgeschickt, sofern nichts anderes vereinbart ist.""",
    ),
    (
        "datenschutz",
        "Datenschutz",
        """Mandantendaten verlassen die Kanzlei nur verschlüsselt.

## Grundregeln
- Keine Mandantendaten in private E-Mail-Postfächer oder Messenger.
- Bildschirm sperren, wenn der Arbeitsplatz verlassen wird.
- Auskunftsersuchen nach Art. 15 DSGVO sofort an die Datenschutzbeauftragte weiterleiten.

Der Copilot pseudonymisiert personenbezogene Daten, bevor sie an ein Sprachmodell gehen.""",
    ),
]


def load(office) -> None:
    admin = Principal.for_user(office.admin)
    for slug, title, body in PAGES:
        services.create_page(
            admin, build(WikiPageCreate, slug=slug, title=title, body=body, comment="Erste Fassung")
        )
    anna = Principal.for_user(office.users["anna"]) if "anna" in office.users else admin
    page = services.get_page(admin, slug="posteingang")
    proposals.propose_change(
        anna,
        slug="posteingang",
        body=page.body + "\n\nFristrelevante Post wird zusätzlich im Team-Raum Steuern gemeldet.",
        comment="Aus dem Chat: Meldung fristrelevanter Post ergänzt.",
        surface="native",
        run_id="demo",
    )
