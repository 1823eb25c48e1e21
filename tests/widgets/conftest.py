import pytest

from apps.accounts.principal import Principal
from apps.tools.context import ToolContext
from tests.factories import ServicePrincipalFactory


@pytest.fixture
def robot_ctx(db):
    return ToolContext(principal=Principal.for_service(ServicePrincipalFactory(name="Morgen-Briefing")))
