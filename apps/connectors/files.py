"""The FileRW jail: every path is resolved to its real path (symlinks followed) and must stay
under the configuration's real root; the file is then opened without following a symlink and
checked to be the very file that was resolved. Files with several hard links are refused (a hard
link is how a file outside the root gets a name inside it). Patterns are file names with
wildcards, matched against the entries of one folder, never a path. Nothing is URL- or
otherwise decoded: `%2e%2e` is a file name like any other.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from apps.connectors.errors import (
    ConnectorConfigInvalid,
    ExtensionNotAllowed,
    FileNotFoundInRoot,
    PathOutsideRoot,
    PatternInvalid,
    WriteNotAllowed,
)
from apps.connectors.models import Connector

MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_PATTERN = 200
EXTRACTED = {
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


@dataclass(frozen=True)
class Jail:
    connector: Connector
    root: str
    others: tuple[tuple[str, str], ...] = ()  # (name, real root) of the agent's other configurations

    @classmethod
    def of(cls, connector: Connector, others: list[Connector] | None = None) -> Jail:
        root = connector.path
        if not root or not os.path.isabs(root) or "\x00" in root:
            raise ConnectorConfigInvalid(_("The connector's root folder is not an absolute path."))
        real = os.path.realpath(root)
        if not os.path.isdir(real):
            raise ConnectorConfigInvalid(_("The connector's root folder does not exist."))
        other_roots = tuple(
            (o.name, os.path.realpath(o.path)) for o in (others or []) if o.pk != connector.pk and o.path
        )
        return cls(connector, real, other_roots)

    # --- paths ---------------------------------------------------------------------------------
    def resolve(self, path: str | None, *, must_exist: bool = True) -> str:
        """The real absolute path for a path relative to the root (an absolute one must lie in it)."""
        raw = path or "."
        if "\x00" in raw or len(raw) > 4000:
            raise PathOutsideRoot(_("That is not a valid path."))
        candidate = raw if os.path.isabs(raw) else os.path.join(self.root, raw)
        real = os.path.realpath(candidate)
        if not _inside(real, self.root):
            raise self._outside(real, raw)
        if must_exist and not os.path.lexists(real):
            raise FileNotFoundInRoot(
                _("There is no file or folder “%(path)s” in “%(name)s”.")
                % {"path": raw[:200], "name": self.connector.name}
            )
        if not must_exist:
            parent = os.path.dirname(real)
            if not os.path.isdir(parent) or not _inside(os.path.realpath(parent), self.root):
                raise FileNotFoundInRoot(_("The folder for “%(path)s” does not exist.") % {"path": raw[:200]})
        return real

    def _outside(self, real: str, raw: str) -> PathOutsideRoot:
        for name, other in self.others:
            if _inside(real, other):
                return PathOutsideRoot(
                    _(
                        "“%(path)s” lies in the connector “%(other)s”, not in “%(name)s”: call it with connector “%(other)s”."
                    )
                    % {"path": raw[:200], "other": name, "name": self.connector.name},
                    details={"connector": name},
                )
        return PathOutsideRoot(
            _("“%(path)s” is outside the folder of “%(name)s”. Use a path relative to its root.")
            % {"path": raw[:200], "name": self.connector.name}
        )

    def relative(self, real: str) -> str:
        return os.path.relpath(real, self.root)

    def check_extension(self, real: str) -> None:
        allowed = {_ext(e) for e in self.connector.allowed_extensions or () if e}
        ext = os.path.splitext(real)[1].lower()
        if not ext or ext not in allowed:
            raise ExtensionNotAllowed(
                _("Files ending in “%(ext)s” are not allowed here. Allowed: %(allowed)s.")
                % {"ext": ext or "-", "allowed": ", ".join(sorted(allowed)) or "-"},
                details={"allowed_extensions": sorted(allowed)},
            )

    def check_write(self) -> None:
        if not self.connector.allow_write:
            raise WriteNotAllowed(_("The connector “%(name)s” is read-only.") % {"name": self.connector.name})

    # --- files ---------------------------------------------------------------------------------
    def file(self, path: str | None, *, for_write: bool = False, must_exist: bool = True) -> str:
        real = self.resolve(path, must_exist=must_exist)
        self.check_extension(real)
        if os.path.lexists(real):
            info = os.lstat(real)
            if not stat.S_ISREG(info.st_mode):
                raise FileNotFoundInRoot(_("“%(path)s” is not a file.") % {"path": (path or "")[:200]})
            if info.st_nlink > 1:
                raise PathOutsideRoot(
                    _("“%(path)s” has several hard links and is refused.") % {"path": (path or "")[:200]}
                )
        if for_write:
            self.check_write()
        return real

    def open_read(self, real: str) -> bytes:
        fd = _open_nofollow(real, os.O_RDONLY)
        try:
            self._same(fd, real)
            info = os.fstat(fd)
            if info.st_size > MAX_FILE_BYTES:
                raise FileNotFoundInRoot(
                    _("The file is larger than %(mb)d MB.") % {"mb": MAX_FILE_BYTES // (1024 * 1024)}
                )
            chunks = []
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def open_write(self, real: str, data: bytes, *, append: bool) -> None:
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
        fd = _open_nofollow(real, flags)
        try:
            self._same(fd, real)
            os.write(fd, data)
        finally:
            os.close(fd)

    def _same(self, fd: int, real: str) -> None:
        """The opened file is still the resolved one inside the root (no swap since the check)."""
        opened = os.fstat(fd)
        if opened.st_nlink > 1 or not stat.S_ISREG(opened.st_mode):
            raise PathOutsideRoot(_("The file changed while it was opened and is refused."))
        now = os.path.realpath(real)
        if now != real or not _inside(now, self.root):
            raise PathOutsideRoot(_("The file changed while it was opened and is refused."))

    def text_of(self, real: str) -> str:
        data = self.open_read(real)
        mime = EXTRACTED.get(os.path.splitext(real)[1].lower())
        if mime is not None:
            from apps.documents.extraction import extract

            return str(extract(data, mime).text)
        return data.decode("utf-8", errors="replace")

    def entries(self, path: str | None, pattern: str | None) -> list[dict[str, Any]]:
        folder = self.resolve(path)
        if not os.path.isdir(folder):
            raise FileNotFoundInRoot(_("“%(path)s” is not a folder.") % {"path": (path or ".")[:200]})
        check_pattern(pattern)
        found = []
        with os.scandir(folder) as it:
            for entry in it:
                if pattern and not fnmatch.fnmatchcase(entry.name, pattern):
                    continue
                info = entry.stat(follow_symlinks=False)
                kind = (
                    "link"
                    if entry.is_symlink()
                    else "folder"
                    if entry.is_dir(follow_symlinks=False)
                    else "file"
                )
                found.append(
                    {
                        "name": entry.name,
                        "path": self.relative(entry.path),
                        "kind": kind,
                        "size": info.st_size,
                        "modified": info.st_mtime,
                    }
                )
        return found


def check_pattern(pattern: str | None) -> None:
    if pattern is None:
        return
    if (
        not pattern
        or len(pattern) > MAX_PATTERN
        or any(c in pattern for c in ("/", "\\", "\x00", os.sep))
        or ".." in pattern
        or pattern in (".", "~")
        or pattern.startswith("~")
    ):
        raise PatternInvalid(
            _("A pattern is a file name with wildcards (e.g. *.pdf or Rechnung_2026*), never a path.")
        )


def _ext(value: str) -> str:
    value = value.strip().lower()
    return value if value.startswith(".") else f".{value}"


def _inside(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _open_nofollow(real: str, flags: int) -> int:
    try:
        return os.open(real, flags | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o640)
    except FileNotFoundError as exc:
        raise FileNotFoundInRoot(_("The file does not exist.")) from exc
    except OSError as exc:  # ELOOP: a symlink appeared at the last component
        raise PathOutsideRoot(_("The file cannot be opened safely.")) from exc
