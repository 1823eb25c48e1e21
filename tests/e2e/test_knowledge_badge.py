"""In the browser: the floating badge shows running indexing and hides when it ends; the Wissen
page's cancel button works without a reload."""

import pytest

from apps.knowledge.models import IndexJob, KnowledgeFile
from tests.e2e.helpers import log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.e2e


def test_badge_and_cancel(server, page):
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger", language="en")
    file = KnowledgeFile.objects.create(
        source_type="document", source_id="1", title="Steuerakte Meier", scope="personal", owner_id=anna.pk
    )
    job = IndexJob.objects.create(
        file=file, status="running", total_chunks=10, done_chunks=3, requested_by=anna
    )
    log_in(page, server, anna.email)
    page.goto(f"{server}/wissen/")
    badge = page.locator("#knowledge-badge")
    badge.wait_for(state="visible", timeout=15000)
    assert "30 %" in badge.inner_text()
    page.locator("#knowledge-jobs button[type=submit]").click()
    page.locator("#knowledge-jobs").get_by_text("Stopping", exact=False).wait_for(timeout=15000)
    job.refresh_from_db()
    assert job.cancel_requested
    IndexJob.objects.filter(pk=job.pk).update(status="cancelled")
    badge.wait_for(state="hidden", timeout=15000)
