import pytest

import tests.tools.sample_tools  # noqa: F401  (registers the testkit tools)
from apps.accounts.principal import Principal
from apps.tools import gating
from apps.tools.context import ToolContext


@pytest.fixture(autouse=True)
def fresh_gating_cache():
    gating.invalidate()
    yield
    gating.invalidate()


@pytest.fixture
def ctx(user):
    return ToolContext(principal=Principal.for_user(user))
