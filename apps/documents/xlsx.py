"""XLSX text: every sheet's rows as "cell | cell" lines, one section per sheet. Standard library
only; a part with a DTD is refused (OOXML parts never carry one, so no entity tricks reach the
parser); bounded like DOCX by unpacked size, text size and time."""

from __future__ import annotations

import io
import posixpath
import zipfile
from typing import TYPE_CHECKING
from xml.etree import ElementTree

if TYPE_CHECKING:
    from apps.documents.extraction import Extracted, _Budget

_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"


def extract_xlsx(data: bytes, budget: _Budget) -> Extracted:
    from apps.documents.extraction import MAX_UNPACKED_BYTES, Extracted, ExtractionFailed, _clean

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
