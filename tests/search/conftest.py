"""An office where the word "Zebrafink" is in a task, a client, a note, a wiki page and a document
Anna may see, and in real rows she may not: Ben's restricted board's task, Ben's private note,
a document in Ben's personal folder (indexed with a coarser, office-wide scope) and a client the
visibility rule hides."""

import pytest

from apps.core.inputs import build
from apps.knowledge import indexing
from apps.knowledge.models import IndexJob
from apps.notes import services as notes
from apps.notes.contracts import NoteCreate
from apps.tasks import services as tasks
from apps.tasks.contracts import BoardCreate, BoardCreateWithSharing, TaskCreate
from apps.wiki import services as wiki
from apps.wiki.contracts import WikiPageCreate
from tests.documents.factories import DocumentFactory, FolderFactory
from tests.factories import ClientFactory


def index(document, data=None):
    """Index a document's text in this process (no broker), as extraction would."""
    file = indexing.index_source("document", document.pk, data or document.knowledge_payload())
    for job in IndexJob.objects.filter(file=file, status__in=IndexJob.ACTIVE).order_by("id"):
        indexing.run_job(job.pk)
    return file


@pytest.fixture
def office(db, as_anna, as_ben, ben, statuses, hidden_client, media_root):
    hidden_client.name = "Zebrafink Geheim AG"
    hidden_client.save(update_fields=["name"])
    shared_board = tasks.create_board(as_anna, build(BoardCreate, name="Kanzlei"))
    secret_board = tasks.create_board(
        as_ben, build(BoardCreateWithSharing, name="Bens Board", visibility="restricted")
    )
    tasks.create_task(as_anna, build(TaskCreate, title="Zebrafink Bilanz prüfen", board_id=shared_board.pk))
    tasks.create_task(as_ben, build(TaskCreate, title="Zebrafink Geheimaufgabe", board_id=secret_board.pk))
    client = ClientFactory(name="Zebrafink KG", client_number="K-777", tax_number="21/815/08150")
    notes.create_note(as_anna, build(NoteCreate, name="Zebrafink Protokoll", text="Besprechung"))
    notes.create_note(
        as_ben, build(NoteCreate, name="Zebrafink Privatnotiz", visibility="private", text="nur für Ben")
    )
    wiki.create_page(
        as_anna, build(WikiPageCreate, title="Zebrafink Handbuch", body="Wie wir Zebrafinken zählen.")
    )
    shared = FolderFactory(name="Kanzlei")
    visible = DocumentFactory(
        title="Zebrafink Vertrag", folder=shared, extracted_text="Vertrag über Zebrafinken."
    )
    index(visible)
    personal = FolderFactory(name="Ben privat", kind="personal", owner=ben)
    hidden_doc = DocumentFactory(
        title="Zebrafink Geheimdokument", folder=personal, extracted_text="Geheime Zebrafinken."
    )
    index(hidden_doc, {**hidden_doc.knowledge_payload(), "scope": "instance", "owner_id": None})
    return {"client": client, "visible_document": visible, "hidden_document": hidden_doc}


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"
