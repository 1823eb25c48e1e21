import pytest

from apps.accounts.models import ServicePrincipal
from apps.accounts.principal import Principal
from apps.tools.context import ToolContext
from tests.factories import ServicePrincipalFactory
from tests.wiki.factories import WikiPageFactory


@pytest.fixture
def as_embed(db):
    return Principal.for_service(
        ServicePrincipalFactory(name="Website", kind=ServicePrincipal.Kind.PUBLIC_EMBED)
    )


@pytest.fixture
def anna_ctx(as_anna):
    return ToolContext(principal=as_anna, run_id="run-1", session_id="s-1")


@pytest.fixture
def handbook(anna):
    """Three office pages written by Anna."""
    return {
        "fristen": WikiPageFactory(
            slug="fristenkontrolle",
            title="Fristenkontrolle",
            body="Jede Frist wird im Kalender eingetragen.\n\nEinspruchsfristen prüfen wir täglich.",
            author=anna,
        ),
        "post": WikiPageFactory(
            slug="posteingang",
            title="Posteingang",
            body="Die Post wird täglich geöffnet und gescannt. Bescheide bekommen eine Frist.",
            author=anna,
        ),
        "daten": WikiPageFactory(
            slug="datenschutz",
            title="Datenschutz",
            body="Mandantendaten bleiben in der Kanzlei.",
            author=anna,
        ),
    }
