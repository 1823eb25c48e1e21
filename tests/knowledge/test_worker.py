"""Indexing through a real Celery worker (not eager), over the configured broker."""

import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.db import transaction

from apps.knowledge import indexing
from apps.knowledge.models import Chunk, KnowledgeFile
from clapilot.celery import app
from tests.knowledge.conftest import payload

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_document_is_indexed_by_the_worker():
    assert not app.conf.task_always_eager
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        with transaction.atomic():
            file = indexing.index_source("document", 1, payload("Die Steuererklärung ist bis Juli fällig."))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            file.refresh_from_db()
            if file.status == KnowledgeFile.Status.INDEXED:
                break
            time.sleep(0.2)
    assert file.status == KnowledgeFile.Status.INDEXED
    assert Chunk.objects.filter(file=file).count() == 1
    assert file.jobs.get().status == "done"
