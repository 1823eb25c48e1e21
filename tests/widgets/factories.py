import factory

from apps.widgets.models import Widget
from tests.factories import UserFactory


class WidgetFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Widget

    owner = factory.SubFactory(UserFactory)
    title = factory.Sequence(lambda n: f"Widget {n}")
    slug = factory.Sequence(lambda n: f"widget-{n}")
    type = "stats"
    definition = factory.LazyFunction(
        lambda: {"type": "stats", "items": [{"label": "Offen", "key": "offen"}]}
    )
    data = factory.LazyFunction(lambda: {"offen": 4})
    position = factory.Sequence(int)
