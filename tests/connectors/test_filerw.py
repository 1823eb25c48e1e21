"""The FileRW tool: jail, extensions, write permission, list/read_many limits, staging, and the
attack suite of traversal, symlink, hard-link, pattern, encoding and case tricks."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from guardian.shortcuts import assign_perm

from apps.accounts.principal import Principal
from apps.connectors.models import Connector
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db
SECRET = "OUTSIDE-SECRET-91c2"


@pytest.fixture
def share(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "ablage"
    (root / "Mandant A").mkdir(parents=True)
    (root / "notiz.txt").write_text("Hallo Ablage")
    (root / "Mandant A" / "brief.txt").write_text("Sehr geehrte Damen und Herren")
    (root / "bild.exe").write_bytes(b"MZ")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    other = tmp_path / "andere"
    other.mkdir()
    (other / "x.txt").write_text(SECRET)
    (root / "link_out.txt").symlink_to(outside / "secret.txt")
    (root / "dir_out").symlink_to(outside)
    os.link(outside / "secret.txt", root / "hard.txt")
    (root / "link_in.txt").symlink_to(root / "notiz.txt")
    return {"root": root, "outside": outside, "other": other}


def _connector(anna: Any, name: str, path: Path, allow_write: bool) -> Connector:
    c = Connector.objects.create(
        tool="filerw",
        name=name,
        kind="files",
        path=str(path),
        allow_write=allow_write,
        allowed_extensions=[".txt", "md"],
    )
    assign_perm("connectors.use_connector", anna, c)
    return c


@pytest.fixture
def files_connector(anna: Any, share: dict[str, Path]) -> Connector:
    _connector(anna, "Andere", share["other"], False)
    return _connector(anna, "Ablage", share["root"], True)


@pytest.fixture
def approved(anna: Any) -> ToolContext:
    return replace(ToolContext(principal=Principal.for_user(anna)), approved=True)


def call(ctx: ToolContext, **args: Any) -> Any:
    args.setdefault("connector", "Ablage")
    return dispatch("filerw", args, ctx)


def test_read_and_foreign_content(files_connector: Connector, anna_ctx: ToolContext) -> None:
    r = call(anna_ctx, action="read", path="Mandant A/brief.txt")
    assert r.ok, r
    assert r.output["text"] == "Sehr geehrte Damen und Herren"
    assert anna_ctx.foreign.seen


def test_symlink_inside_the_root_is_read(files_connector: Connector, anna_ctx: ToolContext) -> None:
    r = call(anna_ctx, action="read", path="link_in.txt")
    assert r.ok and r.output["text"] == "Hallo Ablage"


def test_list_states_total_and_caps(
    files_connector: Connector, anna_ctx: ToolContext, share: dict[str, Path]
) -> None:
    for i in range(60):
        (share["root"] / f"f{i:03}.txt").write_text(str(i))
    r = call(anna_ctx, action="list", path=".", pattern="f*.txt", sort="name", order="asc", limit=5)
    assert r.ok, r
    assert r.output["total"] == 60
    assert [e["name"] for e in r.output["entries"]] == [
        "f000.txt",
        "f001.txt",
        "f002.txt",
        "f003.txt",
        "f004.txt",
    ]
    assert "5 von 60" in r.output["header"]  # the instance speaks German by default
    assert r.output["notice"]["code"] == "result_truncated"
    default = call(anna_ctx, action="list")
    assert len(default.output["entries"]) == 50 and default.output["total"] > 60


def test_read_many_names_what_did_not_fit(
    files_connector: Connector, anna_ctx: ToolContext, share: dict[str, Path]
) -> None:
    for i in range(55):
        (share["root"] / "Mandant A" / f"m{i:02}.txt").write_text("x" * 5000)
    r = call(anna_ctx, action="read_many", path="Mandant A", pattern="m*.txt")
    assert r.ok, r
    texts = [f for f in r.output["files"] if "text" in f]
    assert sum(len(f["text"]) for f in texts) <= 200_000
    assert len(texts) == 40
    assert len(r.output["omitted"]) == 15
    assert r.output["notice"]["code"] == "result_truncated"


def test_writes_are_staged(files_connector: Connector, anna_ctx: ToolContext, share: dict[str, Path]) -> None:
    r = call(anna_ctx, action="write", path="neu.txt", content="x")
    assert not r.ok and r.code == "approval_required"
    assert not (share["root"] / "neu.txt").exists()


def test_approved_write_append_copy_delete(
    files_connector: Connector, approved: ToolContext, share: dict[str, Path]
) -> None:
    assert call(approved, action="write", path="neu.txt", content="Hallo").ok
    assert call(approved, action="append", path="neu.txt", content=" Welt").ok
    assert (share["root"] / "neu.txt").read_text() == "Hallo Welt"
    assert call(approved, action="copy", path="neu.txt", target="Mandant A/kopie.txt").ok
    assert (share["root"] / "Mandant A" / "kopie.txt").read_text() == "Hallo Welt"
    assert call(approved, action="delete", path="neu.txt").ok
    assert not (share["root"] / "neu.txt").exists()


def test_read_only_connector_refuses_writes(files_connector: Connector, approved: ToolContext) -> None:
    r = call(approved, connector="Andere", action="write", path="y.txt", content="x")
    assert not r.ok and r.code == "write_not_allowed"


def test_path_in_the_other_configuration_is_named(
    files_connector: Connector, anna_ctx: ToolContext, share: dict[str, Path]
) -> None:
    r = call(anna_ctx, action="read", path=str(share["other"] / "x.txt"))
    assert not r.ok and r.code == "path_outside_root"
    assert "Andere" in r.message and SECRET not in json.dumps(r.as_dict())


def test_other_person_cannot_use_it(files_connector: Connector, ben: Any) -> None:
    r = call(ToolContext(principal=Principal.for_user(ben)), action="list")
    assert not r.ok and r.code == "connector_not_found"


TRICKS: list[tuple[str, dict[str, Any]]] = [
    ("traversal", {"action": "read", "path": "../outside/secret.txt"}),
    ("traversal deep", {"action": "read", "path": "Mandant A/../../outside/secret.txt"}),
    ("traversal many", {"action": "read", "path": "../../../../../../etc/passwd"}),
    ("absolute", {"action": "read", "path": "/etc/passwd"}),
    ("absolute outside", {"action": "read", "path": "{outside}/secret.txt"}),
    ("root prefix sibling", {"action": "read", "path": "{root}_evil/x.txt"}),
    ("dot segments", {"action": "read", "path": "./././../outside/secret.txt"}),
    ("double slash", {"action": "read", "path": "..//outside//secret.txt"}),
    ("backslash", {"action": "read", "path": "..\\outside\\secret.txt"}),
    ("percent encoded", {"action": "read", "path": "%2e%2e/outside/secret.txt"}),
    ("percent encoded slash", {"action": "read", "path": "..%2foutside%2fsecret.txt"}),
    ("double percent", {"action": "read", "path": "%252e%252e/outside/secret.txt"}),
    ("overlong utf8", {"action": "read", "path": "\u00c0\u00ae\u00c0\u00ae/outside/secret.txt"}),
    ("overlong utf8 slash", {"action": "read", "path": "..\u00c0\u00afoutside\u00c0\u00afsecret.txt"}),
    ("fullwidth dots", {"action": "read", "path": "\uff0e\uff0e/outside/secret.txt"}),
    ("nul byte", {"action": "read", "path": "notiz.txt\x00../outside/secret.txt"}),
    ("nul extension", {"action": "read", "path": "../outside/secret.txt\x00.txt"}),
    ("symlink file", {"action": "read", "path": "link_out.txt"}),
    ("symlink dir", {"action": "read", "path": "dir_out/secret.txt"}),
    ("symlink dir list", {"action": "list", "path": "dir_out"}),
    ("hard link", {"action": "read", "path": "hard.txt"}),
    ("hard link copy", {"action": "copy", "path": "hard.txt", "target": "h2.txt"}),
    ("write through symlink", {"action": "write", "path": "link_out.txt", "content": "pwned"}),
    ("write into symlinked dir", {"action": "write", "path": "dir_out/new.txt", "content": "pwned"}),
    ("append through symlink", {"action": "append", "path": "link_out.txt", "content": "pwned"}),
    ("delete through symlink dir", {"action": "delete", "path": "dir_out/secret.txt"}),
    ("copy out", {"action": "copy", "path": "notiz.txt", "target": "../outside/copied.txt"}),
    ("copy in", {"action": "copy", "path": "../outside/secret.txt", "target": "stolen.txt"}),
    ("pattern traversal", {"action": "list", "path": ".", "pattern": "../*"}),
    ("pattern path", {"action": "list", "path": ".", "pattern": "dir_out/*"}),
    ("pattern absolute", {"action": "read_many", "path": ".", "pattern": "/etc/*"}),
    ("pattern backslash", {"action": "read_many", "path": ".", "pattern": "..\\*"}),
    ("pattern dotdot", {"action": "read_many", "path": ".", "pattern": "..*"}),
    ("pattern home", {"action": "list", "path": ".", "pattern": "~root"}),
    ("read_many outside", {"action": "read_many", "paths": ["notiz.txt", "../outside/secret.txt"]}),
    ("read_many folder outside", {"action": "read_many", "path": "../outside", "pattern": "*.txt"}),
    ("list outside", {"action": "list", "path": ".."}),
    ("case extension trick", {"action": "read", "path": "bild.EXE"}),
    ("disallowed extension", {"action": "read", "path": "bild.exe"}),
    ("trailing dot extension", {"action": "write", "path": "evil.txt.", "content": "x"}),
    ("trailing space extension", {"action": "write", "path": "evil.exe ", "content": "x"}),
    ("stream suffix", {"action": "write", "path": "evil.exe::$DATA", "content": "x"}),
    ("case root", {"action": "read", "path": "{root_upper}/notiz.txt"}),
    ("read another agent's root", {"action": "read", "path": "{other}/x.txt"}),
]

REFUSED = {
    "path_outside_root",
    "extension_not_allowed",
    "pattern_invalid",
    "write_not_allowed",
    "connector_file_not_found",
    "invalid_arguments",
}


def test_the_suite_is_large_enough() -> None:
    assert len(TRICKS) >= 30


def test_zero_escapes(files_connector: Connector, approved: ToolContext, share: dict[str, Path]) -> None:
    root = share["root"]
    fill = {
        "root": str(root),
        "outside": str(share["outside"]),
        "other": str(share["other"]),
        "root_upper": str(root).upper(),
    }
    escapes = []
    for label, raw in TRICKS:
        args = {k: (v.format(**fill) if isinstance(v, str) and "{" in v else v) for k, v in raw.items()}
        result = call(approved, **args)
        text = json.dumps(result.as_dict(), ensure_ascii=False)
        leaked = SECRET in text or "root:x:" in text
        if result.ok and args["action"] == "read_many":
            leaked = leaked or any("text" in f and f["path"].startswith("..") for f in result.output["files"])
        if (
            (result.ok and args["action"] != "read_many")
            or leaked
            or (not result.ok and result.code not in REFUSED)
        ):
            escapes.append((label, result.code, text[:160]))
    assert escapes == []
    # the outside world is untouched
    assert (share["outside"] / "secret.txt").read_text() == SECRET
    assert sorted(p.name for p in share["outside"].iterdir()) == ["secret.txt"]
