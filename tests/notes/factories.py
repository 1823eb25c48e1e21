import factory

from apps.notes.models import Note, NoteFolder, NotePage
from tests.factories import UserFactory


class NoteFolderFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = NoteFolder

    name = factory.Sequence(lambda n: f"Ordner {n}")
    visibility = "shared"


class NoteFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Note

    name = factory.Sequence(lambda n: f"Notiz {n}")
    visibility = "shared"
    owner = factory.SubFactory(UserFactory)


class NotePageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = NotePage

    note = factory.SubFactory(NoteFactory)
    title = factory.Sequence(lambda n: f"Seite {n}")
    html = "<p>Inhalt</p>"
    text = "Inhalt"
