import pytest

import tests.tools.sample_tools  # noqa: F401  (registers the testkit tools)
from apps.accounts.principal import Principal
from apps.tools.context import ToolContext


@pytest.fixture
def ctx(user):
    return ToolContext(principal=Principal.for_user(user))
