"""In the browser: several files dropped on the documents page upload with per-file progress,
a worker extracts them, and the open list updates live without a reload."""

import pytest

from tests.documents.factories import pdf_bytes
from tests.e2e.helpers import log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.e2e


@pytest.fixture
def shared_media(monkeypatch, tmp_path):
    """The server and worker subprocesses must write and read the same media directory."""
    monkeypatch.setenv("MEDIA_ROOT", str(tmp_path / "e2e-media"))


def test_drop_several_files_and_watch_extraction(shared_media, server, worker, page):
    from apps.documents.models import Document

    user = UserFactory(email="anna@kanzlei.example")
    log_in(page, server, user.email)
    page.goto(f"{server}/dokumente/")
    page.wait_for_selector("#upload-zone")
    page.wait_for_timeout(500)  # let the mutation socket connect

    pdf = list(pdf_bytes(["Steuerbescheid Hoffmann"]))
    page.evaluate(
        """([pdf]) => {
          const transfer = new DataTransfer();
          transfer.items.add(new File([new Uint8Array(pdf)], "bescheid.pdf", { type: "application/pdf" }));
          transfer.items.add(new File(["Notiz zur Frist"], "notiz.txt", { type: "text/plain" }));
          transfer.items.add(new File([], "leer.txt", { type: "text/plain" }));
          const zone = document.getElementById("upload-zone");
          zone.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
        }""",
        [pdf],
    )
    rows = page.locator("#upload-list li")
    rows.nth(2).locator(".error").wait_for(timeout=5000)  # the empty file is refused at once
    assert rows.count() == 3
    for title in ("bescheid", "notiz"):
        row = page.locator(f'#document-rows tr:has(a:text-is("{title}"))')
        row.locator(".badge.extraction-done").wait_for(timeout=30000)  # live, no reload
    assert set(Document.objects.values_list("extraction_status", flat=True)) == {"done"}
    assert "Steuerbescheid Hoffmann" in Document.objects.get(title="bescheid").extracted_text


def test_open_detail_page_follows_the_extraction(shared_media, server, page):
    from apps.documents import processing
    from tests.documents.factories import DocumentFactory

    user = UserFactory(email="ben@kanzlei.example")
    doc = DocumentFactory(extraction_status="pending", extracted_text="", title="Mandantenbrief")
    log_in(page, server, user.email)
    page.goto(f"{server}/dokumente/{doc.pk}/")
    page.wait_for_selector("#extraction-status.extraction-pending")
    page.wait_for_timeout(500)  # let the mutation socket connect

    # Another thread: Playwright's sync API keeps an event loop running in this one, and the
    # mutation publisher cannot run async_to_sync inside it.
    import threading

    from django.db import connection

    results = []

    def extract():
        results.append(processing.run_extraction(doc.pk))
        connection.close()

    thread = threading.Thread(target=extract)
    thread.start()
    thread.join(timeout=30)
    assert results == ["done"]
    page.wait_for_selector("#extraction-status.extraction-done", timeout=10000)
    page.locator("#document-text pre").get_by_text("Hallo Welt").wait_for(timeout=10000)
