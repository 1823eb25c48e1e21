import pytest

from apps.documents import demo
from apps.documents.models import Document, Folder
from apps.ops.demo import DemoOffice
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_demo_documents_load_with_text():
    admin = UserFactory(role="admin", is_superuser=True)
    anna = UserFactory(full_name="Anna Berger")
    office = DemoOffice(admin=admin, password=None, users={"anna": anna})
    demo.load(office)
    assert Folder.objects.filter(name="Meier GmbH", parent__name="Mandanten").exists()
    assert Document.objects.count() == 5
    assert set(Document.objects.values_list("extraction_status", flat=True)) == {"done"}
    private = Document.objects.get(title="Meine Notizen")
    assert private.folder.is_home and private.folder.owner == anna
    assert Document.objects.get(title="Aktennotiz Einspruch KSt 2023").clients.get().client_number == "10003"
