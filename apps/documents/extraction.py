"""Text extraction per format. Pure functions over bytes: no database, no Django models, so the
job decides what a result or a failure means for the document.

Each extractor returns an `Extracted` (text, sections, pages) or raises `ExtractionFailed` with a
stable reason (`encrypted`, `corrupt`, `too_large`, `timeout`) or `Unsupported`. Hostile input
(PDF bombs, zip bombs in DOCX) is bounded by page, text-size, unpacked-size and time limits.
"""

from __future__ import annotations

import email
import email.policy
import io
import posixpath
import re
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from xml.etree import ElementTree

import nh3

MAX_PAGES = 2_000
MAX_TEXT_CHARS = 5_000_000
MAX_SECONDS = 120.0
MAX_UNPACKED_BYTES = 200 * 1024 * 1024

PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
TEXT_TYPES = {"text/plain", "text/csv"}
MARKDOWN = "text/markdown"
HTML = "text/html"
EML = "message/rfc822"
SUPPORTED = {PDF, DOCX, XLSX, MARKDOWN, HTML, EML, *TEXT_TYPES}

Progress = Callable[[int], None]


@dataclass
class Extracted:
    text: str
    sections: list[dict] = field(default_factory=list)
    page_count: int | None = None


class Unsupported(Exception):
    pass


class ExtractionFailed(Exception):
    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


class _Budget:
    def __init__(self, max_seconds: float, max_chars: int) -> None:
        self.deadline = time.monotonic() + max_seconds
        self.max_chars = max_chars
        self.chars = 0

    def add(self, text: str) -> None:
        self.chars += len(text)
        if self.chars > self.max_chars:
            raise ExtractionFailed("too_large", "text")
        if time.monotonic() > self.deadline:
            raise ExtractionFailed("timeout")


def extract(
    data: bytes,
    mime_type: str,
    *,
    progress: Progress | None = None,
    max_pages: int = MAX_PAGES,
    max_chars: int = MAX_TEXT_CHARS,
    max_seconds: float = MAX_SECONDS,
) -> Extracted:
    budget = _Budget(max_seconds, max_chars)
    if mime_type == PDF:
        return _pdf(data, budget, max_pages, progress)
    if mime_type == DOCX:
        return _docx(data, budget)
    if mime_type == XLSX:
        return _xlsx(data, budget)
    if mime_type in TEXT_TYPES:
        return _plain(_decode(data), budget)
    if mime_type == MARKDOWN:
        return _markdown(_decode(data), budget)
    if mime_type == HTML:
        return _html(_decode(data), budget)
    if mime_type == EML:
        return _eml(data, budget)
    raise Unsupported(mime_type)


def _decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for encoding in ("utf-8", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _clean(text: str) -> str:
    text = text.replace("\x00", "").replace("\r\n", "\n")
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# --- PDF ----------------------------------------------------------------------------------------
def _pdf(data: bytes, budget: _Budget, max_pages: int, progress: Progress | None) -> Extracted:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, LimitReachedError, PdfReadError, PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                if not reader.decrypt(""):
                    raise ExtractionFailed("encrypted")
            except (FileNotDecryptedError, NotImplementedError, PyPdfError):
                raise ExtractionFailed("encrypted") from None
        count = len(reader.pages)
        if count > max_pages:
            raise ExtractionFailed("too_large", "pages")
        sections = []
        step = max(1, count // 10)
        for number, page in enumerate(reader.pages, start=1):
            text = _clean(page.extract_text() or "")
            budget.add(text)
            sections.append({"title": f"Seite {number}", "text": text, "page": number})
            if progress is not None and number % step == 0 and number < count:
                progress(int(number * 100 / count))
    except ExtractionFailed:
        raise
    except FileNotDecryptedError:
        raise ExtractionFailed("encrypted") from None
    except LimitReachedError:  # pypdf's own cap on decompressed streams: a compression bomb
        raise ExtractionFailed("too_large", "stream") from None
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, AssertionError,
            RecursionError, OSError, zipfile.BadZipFile) as exc:  # fmt: skip
        raise ExtractionFailed("corrupt", type(exc).__name__) from None
    text = "\n\n".join(s["text"] for s in sections if s["text"])
    return Extracted(text=text, sections=[s for s in sections if s["text"]], page_count=count)


# --- DOCX ---------------------------------------------------------------------------------------
_HEADING = re.compile(r"^(heading|überschrift|titre|titolo|title)\s*\d*$", re.IGNORECASE)


def _docx(data: bytes, budget: _Budget) -> Extracted:
    import docx

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if sum(info.file_size for info in archive.infolist()) > MAX_UNPACKED_BYTES:
                raise ExtractionFailed("too_large", "unpacked")
        document = docx.Document(io.BytesIO(data))
        sections: list[dict] = []
        current = {"title": "", "text": ""}
        lines: list[str] = []
        for paragraph in document.paragraphs:
            text = paragraph.text.strip()
            if not text:
                continue
            budget.add(text)
            style = (paragraph.style.name if paragraph.style is not None else "") or ""
            if _HEADING.match(style.strip()):
                if current["title"] or current["text"]:
                    sections.append(current)
                current = {"title": text, "text": ""}
            else:
                current["text"] = f"{current['text']}\n{text}".strip()
            lines.append(text)
        for table in document.tables:
            for row in table.rows:
                cells = " | ".join(cell.text.strip() for cell in row.cells)
                budget.add(cells)
                lines.append(cells)
        if current["title"] or current["text"]:
            sections.append(current)
    except ExtractionFailed:
        raise
    except Exception as exc:  # python-docx raises many kinds on broken packages
        raise ExtractionFailed("corrupt", type(exc).__name__) from None
    return Extracted(text=_clean("\n".join(lines)), sections=sections)


# --- text, Markdown, HTML, e-mail ----------------------------------------------------------------
def _plain(text: str, budget: _Budget) -> Extracted:
    text = _clean(text)
    budget.add(text)
    return Extracted(text=text, sections=[{"title": "", "text": text}] if text else [])


_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def _markdown(text: str, budget: _Budget) -> Extracted:
    text = _clean(text)
    budget.add(text)
    sections: list[dict] = []
    current = {"title": "", "text": ""}
    for line in text.splitlines():
        match = _MD_HEADING.match(line)
        if match:
            if current["title"] or current["text"]:
                sections.append(current)
            current = {"title": match.group(2).strip(), "text": ""}
        else:
            current["text"] = f"{current['text']}\n{line}".strip()
    if current["title"] or current["text"]:
        sections.append(current)
    return Extracted(text=text, sections=sections)


class _TextCollector(HTMLParser):
    BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "table"}
    HEADINGS = {"h1", "h2", "h3"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[dict] = [{"title": "", "text": ""}]
        self.in_heading = False

    def handle_starttag(self, tag, attrs):
        if tag in self.HEADINGS:
            self.in_heading = True
            self.sections.append({"title": "", "text": ""})
        elif tag in self.BLOCKS:
            self.sections[-1]["text"] += "\n"

    def handle_endtag(self, tag):
        if tag in self.HEADINGS:
            self.in_heading = False
        elif tag in self.BLOCKS:
            self.sections[-1]["text"] += "\n"

    def handle_data(self, data):
        key = "title" if self.in_heading else "text"
        self.sections[-1][key] += data


def html_to_text(markup: str) -> tuple[str, list[dict]]:
    """Sanitize first (scripts, styles and their content go), then keep text and headings."""
    safe = nh3.clean(
        markup, tags={"p", "div", "br", "li", "tr", "td", "h1", "h2", "h3", "h4", "table", "span"}
    )
    collector = _TextCollector()
    collector.feed(safe)
    collector.close()
    sections = []
    for section in collector.sections:
        title = " ".join(unescape(section["title"]).split())
        body = _clean(re.sub(r"[ \t]+", " ", unescape(section["text"])))
        body = "\n".join(line.strip() for line in body.splitlines() if line.strip())
        if title or body:
            sections.append({"title": title, "text": body})
    text = "\n\n".join(f"{s['title']}\n{s['text']}".strip() for s in sections)
    return text, sections


def _html(markup: str, budget: _Budget) -> Extracted:
    budget.add(markup)
    text, sections = html_to_text(markup)
    return Extracted(text=text, sections=sections)


def _eml(data: bytes, budget: _Budget) -> Extracted:
    try:
        message = email.message_from_bytes(data, policy=email.policy.default)
        headers = []
        for name in ("From", "To", "Cc", "Date", "Subject"):
            value = message.get(name)
            if value:
                headers.append(f"{name}: {value}")
        part = message.get_body(preferencelist=("plain", "html"))
        body = ""
        if part is not None:
            content = part.get_content()
            body = html_to_text(content)[0] if part.get_content_type() == "text/html" else _clean(content)
        attachments = [a.get_filename() for a in message.iter_attachments() if a.get_filename()]
    except Exception as exc:  # malformed MIME structures raise many kinds
        raise ExtractionFailed("corrupt", type(exc).__name__) from None
    if not headers and not body:
        raise ExtractionFailed("corrupt", "no headers")
    head = "\n".join(headers)
    budget.add(head + body)
    sections = [{"title": str(message.get("Subject") or ""), "text": body}] if body else []
    if attachments:
        head += "\nAttachments: " + ", ".join(attachments)
    return Extracted(text=_clean(f"{head}\n\n{body}"), sections=sections)


# --- XLSX ---------------------------------------------------------------------------------------
_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"


def _xlsx(data: bytes, budget: _Budget) -> Extracted:
    """Every sheet's rows as "cell | cell" lines, one section per sheet; standard library only; a
    part with a DTD is refused (OOXML parts never carry one, so no entity tricks reach the
    parser); bounded like DOCX by unpacked size, text size and time."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if sum(info.file_size for info in archive.infolist()) > MAX_UNPACKED_BYTES:
                raise ExtractionFailed("too_large", "unpacked")
            shared = _shared_strings(archive)
            sections = []
            for name, path in _sheets(archive):
                lines = []
                for row in _xml(archive.read(path)).iter(f"{_NS}row"):
                    cells = [_cell(c, shared) for c in row.iter(f"{_NS}c")]
                    line = " | ".join(cells).strip(" |")
                    if line:
                        budget.add(line)
                        lines.append(line)
                sections.append({"title": name, "text": "\n".join(lines)})
    except ExtractionFailed:
        raise
    except Exception as exc:  # a broken package or XML raises many kinds
        raise ExtractionFailed("corrupt", type(exc).__name__) from None
    text = "\n\n".join(f"{s['title']}\n{s['text']}".strip() for s in sections)
    return Extracted(text=_clean(text), sections=sections)


def _xml(data: bytes) -> ElementTree.Element:
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise ValueError("DTD in an OOXML part")
    return ElementTree.fromstring(data)  # noqa: S314  (no DTD: nothing to expand or fetch)


def _shared_strings(archive: zipfile.ZipFile) -> list[str]:
    if "xl/sharedStrings.xml" not in archive.namelist():
        return []
    root = _xml(archive.read("xl/sharedStrings.xml"))
    return ["".join(t.text or "" for t in si.iter(f"{_NS}t")) for si in root.iter(f"{_NS}si")]


def _sheets(archive: zipfile.ZipFile) -> list[tuple[str, str]]:
    """(sheet name, part path) in workbook order."""
    workbook = _xml(archive.read("xl/workbook.xml"))
    rels = _xml(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {r.get("Id"): r.get("Target", "") for r in rels}
    found = []
    for sheet in workbook.iter(f"{_NS}sheet"):
        target = targets.get(sheet.get(_REL), "")
        path = target.lstrip("/") if target.startswith("/") else posixpath.normpath(f"xl/{target}")
        if path in archive.namelist():
            found.append((sheet.get("name", ""), path))
    return found


def _cell(cell: ElementTree.Element, shared: list[str]) -> str:
    kind = cell.get("t")
    if kind == "inlineStr":
        return "".join(t.text or "" for t in cell.iter(f"{_NS}t")).strip()
    value = cell.findtext(f"{_NS}v") or ""
    if kind == "s" and value.isdigit() and int(value) < len(shared):
        return shared[int(value)].strip()
    if kind == "b":
        return "TRUE" if value == "1" else "FALSE"
    return value.strip()
