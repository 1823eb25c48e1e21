import pytest

from apps.ops.demo import DemoOffice
from apps.widgets import demo
from apps.widgets.models import Widget

pytestmark = pytest.mark.django_db


def test_demo_widgets(admin_user):
    """Only the office notice: the Fristen figures are counted live by the dashboard's "Heute",
    never kept as a widget's stored copy (which showed 3 / 1 / 7 against a real 1 / 2 / 5)."""
    demo.load(DemoOffice(admin=admin_user, password=None))
    assert list(Widget.objects.filter(owner=admin_user).values_list("type", "title")) == [
        ("notice", "Kanzlei-Hinweis")
    ]
