import pytest
from django.contrib.auth.models import Permission

from apps.accounts.principal import Principal
from apps.core.inputs import build
from apps.learning import services as learning
from apps.learning.contracts import LearningProposal
from apps.wiki import proposals
from tests.factories import UserFactory
from tests.memory.checks import checked_at_once  # noqa: F401 (autouse)
from tests.wiki.factories import WikiPageFactory


@pytest.fixture
def chef(db):
    """An admin: reviews everything."""
    return UserFactory(email="chef@kanzlei.example", full_name="Clara Chef", role="admin")


@pytest.fixture
def as_chef(chef):
    return Principal.for_user(chef)


@pytest.fixture
def reviewer(db):
    """Staff with the memory and learning review permissions."""
    person = UserFactory(email="rita@kanzlei.example", full_name="Rita Prüfer")
    person.user_permissions.add(
        Permission.objects.get(codename="review_memory"),
        Permission.objects.get(codename="review_learningobject"),
    )
    return person


def stage_fact(text: str, *, subject: str = "", confidence: float | None = 0.5):
    """A durable fact the extraction staged (uncertain unless it conflicts)."""
    obj, _ = learning.propose(
        build(
            LearningProposal,
            kind="durable_fact",
            text=text,
            subject=subject,
            quote=text,
            run_id=None,
            confidence=confidence,
        )
    )
    return obj


def propose_wiki(principal, slug: str, body: str, anna):
    WikiPageFactory(slug=slug, title=slug.title(), body="Alter Text.", author=anna)
    return proposals.propose_change(principal, slug=slug, body=body)[0]
