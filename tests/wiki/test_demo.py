import pytest

from apps.ops.demo import DemoOffice
from apps.wiki import demo
from apps.wiki.models import WikiPage, WikiProposal

pytestmark = pytest.mark.django_db


def test_demo_handbook(admin_user, anna):
    demo.load(DemoOffice(admin=admin_user, password=None, users={"anna": anna}))
    assert set(WikiPage.objects.values_list("slug", flat=True)) == {
        "fristenkontrolle",
        "posteingang",
        "datenschutz",
    }
    assert WikiProposal.objects.get().status == "pending"
