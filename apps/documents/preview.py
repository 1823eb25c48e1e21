"""What the document page can show of the file itself: a PDF in the browser's viewer, an image,
or nothing (every other type is a download). A PDF that pypdf cannot open, or that needs a
password, gets a message instead of a frame that would stay blank or show an error page."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

from apps.documents.models import Document
from apps.documents.responses import IMAGE_TYPES, PDF, inline_type

PROBLEMS = {
    "corrupt": _("The PDF is damaged and cannot be shown here. Download it to open it in another program."),
    "encrypted": _("The PDF is password-protected and cannot be shown here. Download it to open it."),
    "mismatch": _(
        "The file's content does not match its type, so it is not shown here. Download it instead."
    ),
}


@dataclass(frozen=True)
class Preview:
    kind: str | None  # "pdf", "image" or None: nothing to show inline
    problem: str = ""  # a stable reason when a preview was expected but cannot be shown

    @property
    def message(self) -> str:
        return str(PROBLEMS.get(self.problem, ""))


def preview_for(document: Document) -> Preview:
    if document.mime_type not in (PDF, *IMAGE_TYPES):
        return Preview(None)
    served = inline_type(document)
    if served is None:
        return Preview(None, "mismatch")
    if served == PDF:
        problem = pdf_problem(document)
        return Preview(None, problem) if problem else Preview("pdf")
    return Preview("image")


def pdf_problem(document: Document) -> str:
    """ "" when the PDF opens; `corrupt` or `encrypted` otherwise. The extraction opened it with
    pypdf already when it produced a page count; only other states are checked here."""
    if document.page_count and document.extraction_status in (
        Document.Extraction.DONE,
        Document.Extraction.EMPTY,
    ):
        return ""
    if document.extraction_error in ("corrupt", "encrypted"):
        return document.extraction_error
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PyPdfError

    try:
        with document.file.open("rb") as handle:
            reader = PdfReader(handle)
            if reader.is_encrypted:
                try:
                    if not reader.decrypt(""):
                        return "encrypted"
                except (FileNotDecryptedError, NotImplementedError, PyPdfError):
                    return "encrypted"
            return "" if len(reader.pages) > 0 else "corrupt"
    except FileNotDecryptedError:
        return "encrypted"
    except Exception:  # any parser failure on hostile bytes is just "cannot be shown"
        return "corrupt"
