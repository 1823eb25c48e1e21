import pytest

from apps.core.demo import DemoOffice
from apps.widgets import demo
from apps.widgets.models import Widget

pytestmark = pytest.mark.django_db


def test_demo_widgets(admin_user):
    demo.load(DemoOffice(admin=admin_user, password=None))
    assert sorted(Widget.objects.filter(owner=admin_user).values_list("type", flat=True)) == [
        "notice",
        "stats",
    ]
