"""In Chromium: a PDF previews in the document page (the browser's PDF viewer in a frame, under
the sandboxing CSP of the file response), an image shows, a corrupt PDF shows a message, and an
uploaded HTML file is never rendered: opening its preview address downloads it."""

import io

import pytest
from django.core.files.base import ContentFile

from tests.documents.factories import pdf_bytes
from tests.e2e.helpers import log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.e2e

PNG_SIZE = (40, 30)


@pytest.fixture
def shared_media(monkeypatch, tmp_path, settings):
    """The server subprocess reads the files this test process writes."""
    media = tmp_path / "e2e-media"
    monkeypatch.setenv("MEDIA_ROOT", str(media))
    settings.MEDIA_ROOT = str(media)
    return media


def _png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", PNG_SIZE, (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


def _doc(user, name, mime, data, **kwargs):
    from tests.documents.factories import DocumentFactory

    return DocumentFactory(
        created_by=user,
        title=name,
        original_filename=name,
        mime_type=mime,
        size=len(data),
        file=ContentFile(data, name=name),
        **kwargs,
    )


def _white_share(png: bytes) -> float:
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    histogram = image.histogram()
    return sum(histogram[241:]) / (image.width * image.height)


def test_pdf_and_image_preview_and_html_downloads(shared_media, server, page):
    user = UserFactory(email="anna@kanzlei.example")
    pdf = _doc(user, "bescheid.pdf", "application/pdf", pdf_bytes(["Bescheid"]), page_count=1)
    image = _doc(user, "scan.png", "image/png", _png())
    broken = _doc(
        user,
        "kaputt.pdf",
        "application/pdf",
        b"%PDF-1.7\n" + b"\x00kaputt" * 100,
        extraction_status="extraction_failed",
        extracted_text="",
    )
    html = _doc(user, "angriff.html", "text/html", b"<script>document.title='pwned'</script><h1>x</h1>")
    violations = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    log_in(page, server, user.email)

    page.goto(f"{server}/dokumente/{pdf.pk}/")
    frame = page.locator("#document-preview iframe.preview-frame")
    frame.wait_for()
    frame.scroll_into_view_if_needed()
    # The viewer paints the white page on its grey background once it has loaded the file.
    for _ in range(30):
        page.wait_for_timeout(500)
        if _white_share(frame.screenshot()) > 0.05:
            break
    else:
        pytest.fail("the PDF viewer did not render the page inside the frame")
    assert not violations, violations

    page.goto(f"{server}/dokumente/{image.pk}/")
    img = page.locator("#document-preview img.preview-image")
    img.wait_for()
    page.wait_for_function("() => document.querySelector('img.preview-image').naturalWidth > 0")
    assert img.evaluate("el => [el.naturalWidth, el.naturalHeight]") == list(PNG_SIZE)

    page.goto(f"{server}/dokumente/{broken.pk}/")
    banner = page.locator('#document-preview [data-preview-problem="corrupt"]')
    banner.wait_for()
    assert page.locator("#document-preview iframe").count() == 0
    assert page.locator("#document-text").is_visible()  # the rest of the page is intact

    page.goto(f"{server}/dokumente/{html.pk}/")
    assert page.locator("#document-preview").count() == 0  # no preview for markup
    with page.expect_download() as download:
        page.evaluate("url => { window.location.href = url; }", f"{server}/dokumente/{html.pk}/vorschau/")
    assert download.value.suggested_filename == "angriff.html"
    assert page.title() != "pwned"
