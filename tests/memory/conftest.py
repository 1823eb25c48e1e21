import pytest

from apps.accounts.principal import Principal
from tests.factories import ServicePrincipalFactory, UserFactory


@pytest.fixture
def boss(db):
    return UserFactory(
        email="chefin@kanzlei.example", full_name="Clara Chef", role="admin", is_superuser=True
    )


@pytest.fixture
def as_boss(boss):
    return Principal.for_user(boss)


@pytest.fixture
def as_robot(db):
    return Principal.for_service(ServicePrincipalFactory(name="Morgen-Briefing"))
