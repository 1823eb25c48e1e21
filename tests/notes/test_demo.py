"""The demo office gets note folders, notes with formatted pages and a voice memo."""

import pytest

from apps.accounts import demo as staff
from apps.notes import demo
from apps.notes.models import Note, NoteFolder, NotePage
from apps.ops.demo import DemoOffice
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_demo_notes_load():
    office = DemoOffice(admin=UserFactory(role="admin", is_superuser=True), password=None)
    staff.load(office)
    demo.load(office)
    assert NoteFolder.objects.filter(parent__name="Mandanten", name="Schreinerei Vogel").exists()
    meeting = Note.objects.get(name="Jahresgespräch 2025")
    assert meeting.visibility == "shared" and meeting.pages.count() == 2
    assert NotePage.objects.get(note=meeting, ordinal=0).audio_attachments[0]["title"]
    private = Note.objects.get(name="Ideen Mandantenrundschreiben")
    assert private.visibility == "private" and private.owner == office.users["anna"]
