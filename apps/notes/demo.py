"""Demo Notizen for "Kanzlei Berger & Partner": office folders, notes with formatted pages, one
with a dictated voice memo, and a private note of Anna's."""

from apps.accounts.principal import Principal
from apps.core.inputs import build
from apps.notes import services
from apps.notes.contracts import NoteCreate, NoteFolderCreate, NotePageCreate, NotePageUpdate

MEETING = (
    "<h2>Jahresgespräch Schreinerei Vogel</h2>"
    "<p><b>Teilnehmer:</b> Herr Vogel, Anna Berger</p>"
    "<ul><li>Inventur zum 31.12. mit Liste der Halbfertigerzeugnisse</li>"
    "<li>Neue CNC-Fräse: <u>Investitionsabzugsbetrag</u> prüfen</li>"
    "<li>Lohnabrechnung ab Januar mit zwei Auszubildenden</li></ul>"
    '<p><span style="color: #b42318">Frist:</span> Unterlagen bis Mitte Januar anfordern.</p>'
)
CHECKLIST = (
    "<h2>Checkliste Jahresabschluss</h2>"
    "<ol><li>Saldenbestätigungen Banken</li><li>Forderungsliste offene Posten</li>"
    "<li>Rückstellungen (Urlaub, Prüfungskosten)</li><li>Anlagenspiegel abstimmen</li></ol>"
)
ONBOARDING = (
    "<h2>Erste Woche</h2><p>Zugänge: DATEV, E-Mail, Clapilot. "
    '<span style="font-size: 18px">Datenschutz-Unterweisung</span> am ersten Tag.</p>'
)


def load(office) -> None:
    admin = Principal.for_user(office.admin)
    anna = Principal.for_user(office.users["anna"])
    mandanten = services.create_folder(admin, build(NoteFolderCreate, name="Mandanten"))
    vogel = services.create_folder(
        admin, build(NoteFolderCreate, name="Schreinerei Vogel", parent_id=mandanten.pk)
    )
    kanzlei = services.create_folder(admin, build(NoteFolderCreate, name="Kanzlei-Organisation"))

    note, page = services.create_note(
        anna,
        build(
            NoteCreate, name="Jahresgespräch 2025", folder_id=vogel.pk, page_title="Protokoll", html=MEETING
        ),
    )
    services.update_page(
        anna,
        page.pk,
        build(
            NotePageUpdate,
            audio_attachments=[
                {
                    "id": "memo-1",
                    "title": "Sprachnotiz nach dem Termin",
                    "transcript": "Herr Vogel schickt die Inventurliste bis zum 10. Januar.",
                    "mime_type": "audio/mp4",
                    "file_size": 482_113,
                    "duration_ms": 41_000,
                    "created_at": "2025-11-20T16:05:00+01:00",
                }
            ],
        ),
    )
    services.create_page(
        anna, note.pk, build(NotePageCreate, title="Offene Punkte", text="Rückruf wegen Leasingvertrag.")
    )
    services.create_note(
        admin, build(NoteCreate, name="Checkliste Jahresabschluss", folder_id=kanzlei.pk, html=CHECKLIST)
    )
    services.create_note(
        admin,
        build(NoteCreate, name="Einarbeitung neue Mitarbeitende", folder_id=kanzlei.pk, html=ONBOARDING),
    )
    privat = services.create_folder(anna, build(NoteFolderCreate, name="Persönlich", visibility="private"))
    services.create_note(
        anna,
        build(
            NoteCreate,
            name="Ideen Mandantenrundschreiben",
            folder_id=privat.pk,
            text="E-Rechnung ab 2025 erklären.",
        ),
    )
    office.extra["note_folders"] = {"mandanten": mandanten, "vogel": vogel, "kanzlei": kanzlei}
