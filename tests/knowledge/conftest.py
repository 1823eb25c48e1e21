import pytest

from apps.clients.models import Client
from apps.knowledge import indexing
from apps.knowledge.models import IndexJob


@pytest.fixture
def meier(db):
    return Client.objects.create(name="Meier GmbH", client_number="K-1001")


def payload(
    text, *, title="Dokument", scope="instance", owner_id=None, client_id=None, path="/Kanzlei", **kw
):
    return {
        "title": title,
        "text": text,
        "scope": scope,
        "owner_id": owner_id,
        "client_id": client_id,
        "path": path,
        **kw,
    }


@pytest.fixture
def index_now(db):
    """Record a source and run its job in this process (no broker involved)."""

    def run(source_id, data, *, source_type="document", batch_size=indexing.BATCH_SIZE, **kw):
        file = indexing.index_source(source_type, source_id, data, **kw)
        for job in IndexJob.objects.filter(file=file, status__in=IndexJob.ACTIVE).order_by("id"):
            indexing.run_job(job.pk, batch_size=batch_size)
        file.refresh_from_db()
        return file

    return run
