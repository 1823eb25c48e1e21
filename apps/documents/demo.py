"""Demo documents for "Kanzlei Berger & Partner": shared client folders, an office folder, Anna's
private notes, and a few Markdown / text documents whose text is extracted right away."""

from __future__ import annotations

from django.core.files.base import ContentFile

from apps.accounts.principal import Principal
from apps.clients.demo import demo_cases, demo_clients
from apps.core.inputs import build
from apps.documents import folders, processing, services
from apps.documents.contracts import DocumentCreate, DocumentUpload, FolderCreate

# (name, parent, client number of a client folder or None)
FOLDERS = [
    ("Mandanten", None, None),
    ("Meier GmbH", "Mandanten", "10003"),
    ("Familie Hoffmann", "Mandanten", "10001"),
    ("Kanzlei", None, None),
]

# (folder, title, client number or None: a client folder links its own, Markdown)
MARKDOWN = [
    (
        "Meier GmbH",
        "Aktennotiz Einspruch KSt 2023",
        None,
        "# Aktennotiz\n\nTelefonat mit Herrn Meier am Montag.\n\n## Einspruch\n\nDer Körperschaftsteuerbescheid "
        "2023 setzt nicht abziehbare Betriebsausgaben an. Einspruchsfrist: ein Monat nach Bekanntgabe.\n\n"
        "## Nächste Schritte\n\n- Belege zur Bewirtung anfordern\n- Einspruch begründen\n",
    ),
    (
        "Familie Hoffmann",
        "Checkliste Einkommensteuer 2025",
        None,
        "# Checkliste ESt 2025\n\n- Lohnsteuerbescheinigungen beider Ehegatten\n- Kinderbetreuungskosten "
        "(Kita-Rechnungen)\n- Spendenbescheinigungen\n- Nachweise Handwerkerleistungen\n",
    ),
    (
        "Kanzlei",
        "Datenschutz-Leitfaden für Mitarbeitende",
        None,
        "# Datenschutz in der Kanzlei\n\n## Mandantendaten\n\nMandantendaten verlassen die Kanzlei nur "
        "verschlüsselt. Öffentliche Links auf Dokumente nur mit Ablaufdatum.\n\n## Passwörter\n\n"
        "Passwörter werden nie per E-Mail versendet.\n",
    ),
]

# The Akte a document is filed in (the demo case's own Aktennotiz).
CASE_OF = {"Aktennotiz Einspruch KSt 2023": "2026-0003"}

TEXTS = [
    (
        "Kanzlei",
        "Telefonliste.txt",
        "Empfang: 089 100 200\nAnna Berger: -11\nMarkus Roth: -12\nGiulia Conti: -13\nTom Weber: -14\n",
    ),
]


def load(office) -> None:
    admin = Principal.for_user(office.admin)
    clients = demo_clients(office)
    created = {}
    for name, parent, client_number in FOLDERS:
        created[name] = folders.create_folder(
            admin,
            build(
                FolderCreate,
                name=name,
                parent_id=created[parent].pk if parent else None,
                client_id=clients[client_number].pk if client_number else None,
            ),
        )
    documents = []
    cases = demo_cases(office)
    for folder, title, client_number, body in MARKDOWN:
        case = cases.get(CASE_OF.get(title, ""))
        documents.append(
            services.create_markdown(
                admin,
                build(
                    DocumentCreate,
                    title=title,
                    content=body,
                    folder_id=created[folder].pk,
                    client_ids=[clients[client_number].pk] if client_number else [],
                    case_id=case.pk if case else None,
                ),
            )
        )
    for folder, filename, body in TEXTS:
        documents.append(
            services.upload_document(
                admin,
                build(DocumentUpload, folder_id=created[folder].pk),
                content=ContentFile(body.encode(), name=filename),
                filename=filename,
            )
        )
    anna = office.users.get("anna")
    if anna is not None:
        principal = Principal.for_user(anna)
        home = folders.ensure_home_folder(principal)
        documents.append(
            services.create_markdown(
                principal,
                build(
                    DocumentCreate,
                    title="Meine Notizen",
                    content="# Notizen\n\nRückruf Frau Hoffmann wegen Kinderbetreuungskosten.\n",
                    folder_id=home.pk,
                ),
            )
        )
    for document in documents:  # the demo should show text at once, not after the worker ran
        processing.run_extraction(document.pk)
    office.extra["document_folders"] = created
