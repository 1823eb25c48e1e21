import factory

from apps.accounts.principal import Principal
from apps.core.inputs import build
from apps.wiki import services
from apps.wiki.contracts import WikiPageCreate
from apps.wiki.models import WikiPage
from tests.factories import UserFactory


class WikiPageFactory(factory.django.DjangoModelFactory):
    """Pages are created through the service, so each starts with its first revision."""

    class Meta:
        model = WikiPage

    title = factory.Sequence(lambda n: f"Handbuchseite {n}")
    slug = factory.Sequence(lambda n: f"handbuchseite-{n}")
    body = "Ein kurzer Text."

    @classmethod
    def _create(cls, model_class, *, author=None, **kwargs):
        author = author or UserFactory()
        return services.create_page(Principal.for_user(author), build(WikiPageCreate, **kwargs))
