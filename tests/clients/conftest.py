import pytest

from apps.clients.models import Case, Client


@pytest.fixture
def make_client(db):
    """A plain row (no service, no live event) for read tests."""
    counter = iter(range(50000, 60000))

    def make(name="Meier GmbH", **fields):
        fields.setdefault("client_number", str(next(counter)))
        return Client.objects.create(name=name, **fields)

    return make


@pytest.fixture
def make_case(db):
    counter = iter(range(1, 10000))

    def make(client, subject="Einkommensteuer 2025", **fields):
        fields.setdefault("reference", f"2026-{next(counter):04d}")
        return Case.objects.create(client=client, subject=subject, **fields)

    return make
