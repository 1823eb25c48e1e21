import pytest

from apps.accounts.principal import Principal
from apps.tools.context import ToolContext
from tests.factories import ServicePrincipalFactory, UserFactory


@pytest.fixture
def anna(db):
    return UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")


@pytest.fixture
def ben(db):
    return UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")


@pytest.fixture
def as_anna(anna):
    return Principal.for_user(anna)


@pytest.fixture
def as_ben(ben):
    return Principal.for_user(ben)


@pytest.fixture
def anna_ctx(as_anna):
    return ToolContext(principal=as_anna)


@pytest.fixture
def ben_ctx(as_ben):
    return ToolContext(principal=as_ben)


@pytest.fixture
def robot_ctx(db):
    return ToolContext(principal=Principal.for_service(ServicePrincipalFactory(name="Morgen-Briefing")))
