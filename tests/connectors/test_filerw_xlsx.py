"""FileRW reads the text of XLSX files through the documents extraction (#26)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from guardian.shortcuts import assign_perm

from apps.connectors.models import Connector
from apps.documents import extraction
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def xlsx(sheets: dict[str, list[list[str | int]]], shared_doctype: str = "") -> bytes:
    """A minimal workbook: text as shared strings, numbers as values, one part per sheet."""
    strings: list[str] = []
    parts: dict[str, str] = {}
    for n, rows in enumerate(sheets.values(), start=1):
        xml_rows = []
        for r, row in enumerate(rows, start=1):
            cells = []
            for value in row:
                if isinstance(value, int):
                    cells.append(f"<c><v>{value}</v></c>")
                else:
                    strings.append(value)
                    cells.append(f'<c t="s"><v>{len(strings) - 1}</v></c>')
            xml_rows.append(f'<row r="{r}">{"".join(cells)}</row>')
        parts[f"xl/worksheets/sheet{n}.xml"] = (
            f'<worksheet xmlns="{MAIN}"><sheetData>{"".join(xml_rows)}</sheetData></worksheet>'
        )
    names = "".join(f'<sheet name="{s}" sheetId="{n}" r:id="rId{n}"/>' for n, s in enumerate(sheets, start=1))
    rels = "".join(
        f'<Relationship Id="rId{n}" Type="{REL}/worksheet" Target="worksheets/sheet{n}.xml"/>'
        for n in range(1, len(sheets) + 1)
    )
    sst = "".join(f"<si><t>{s}</t></si>" for s in strings)
    parts["xl/workbook.xml"] = f'<workbook xmlns="{MAIN}" xmlns:r="{REL}"><sheets>{names}</sheets></workbook>'
    parts["xl/_rels/workbook.xml.rels"] = (
        f'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{rels}</Relationships>'
    )
    parts["xl/sharedStrings.xml"] = f'{shared_doctype}<sst xmlns="{MAIN}">{sst}</sst>'
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_filerw_reads_the_text_of_an_xlsx(tmp_path: Path, anna: Any, anna_ctx: ToolContext) -> None:
    root = tmp_path / "ablage"
    root.mkdir()
    data = xlsx({"Stunden": [["Mandant", "Stunden"], ["Müller GmbH", 7]], "Notizen": [["Frist 30.6."]]})
    (root / "zeiten.xlsx").write_bytes(data)
    c = Connector.objects.create(
        tool="filerw", name="Ablage", kind="files", path=str(root), allowed_extensions=[".xlsx"]
    )
    assign_perm("connectors.use_connector", anna, c)
    r = dispatch("filerw", {"connector": "Ablage", "action": "read", "path": "zeiten.xlsx"}, anna_ctx)
    assert r.ok, r
    text = r.output["text"]
    assert "Mandant | Stunden" in text and "Müller GmbH | 7" in text and "Frist 30.6." in text
    assert text.index("Stunden") < text.index("Notizen")  # sheets in workbook order, named


def test_an_xlsx_part_with_a_dtd_is_refused() -> None:
    bomb = '<!DOCTYPE sst [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
    with pytest.raises(extraction.ExtractionFailed) as failed:
        extraction.extract(xlsx({"S": [["x"]]}, shared_doctype=bomb), extraction.XLSX)
    assert failed.value.reason == "corrupt"
    with pytest.raises(extraction.ExtractionFailed):
        extraction.extract(b"PK\x03\x04 not a workbook", extraction.XLSX)
