from tests.memory.checks import checked_at_once, deferred_checks  # noqa: F401
