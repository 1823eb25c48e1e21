"""Indexing through a real Celery worker (not eager), over the configured broker."""

import pytest
from django.db import transaction

from apps.knowledge import indexing
from apps.knowledge.models import Chunk, KnowledgeFile
from clapilot.celery import app
from tests.knowledge.conftest import payload
from tests.waiting import wait_for
from tests.workers import in_process_worker

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_document_is_indexed_by_the_worker():
    assert not app.conf.task_always_eager
    with in_process_worker():
        with transaction.atomic():
            file = indexing.index_source("document", 1, payload("Die Steuererklärung ist bis Juli fällig."))

        def indexed():
            file.refresh_from_db()
            return file.status == KnowledgeFile.Status.INDEXED

        wait_for(indexed, timeout=60)
    assert file.status == KnowledgeFile.Status.INDEXED
    assert Chunk.objects.filter(file=file).count() == 1
    assert file.jobs.get().status == "done"
