"""Reading the project's gettext catalogs (.po) without a third-party parser: the untranslated-
string scan needs every msgid and its translation per language, fuzzy entries counting as
untranslated (compilemessages leaves them out of the .mo)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings


@dataclass
class Entry:
    msgid: str
    msgstr: str
    context: str = ""
    fuzzy: bool = False


def _unquote(line: str) -> str:
    return ast.literal_eval(line)


def parse_po(path: Path) -> list[Entry]:
    """The entries of one .po file (plural entries give their singular msgid and first form)."""
    entries: list[Entry] = []
    current: dict[str, str] = {}
    field = ""
    fuzzy = False

    def flush() -> None:
        nonlocal current, fuzzy
        if current.get("msgid"):
            msgstr = current.get("msgstr", current.get("msgstr[0]", ""))
            entries.append(Entry(current["msgid"], msgstr, current.get("msgctxt", ""), fuzzy))
        current, fuzzy = {}, False

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            flush()
        elif line.startswith("#~"):
            continue  # obsolete
        elif line.startswith("#,"):
            fuzzy = fuzzy or "fuzzy" in line
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            current[field] = current.get(field, "") + _unquote(line)
        else:
            keyword, _, rest = line.partition(" ")
            if keyword == "msgctxt" and "msgid" in current:
                flush()
            field = keyword
            current[field] = _unquote(rest)
    flush()
    return entries


def catalog_files(language: str, domain: str = "django") -> list[Path]:
    """The global catalog and every app's own one, for one language."""
    base = Path(settings.BASE_DIR)
    files = [base / "locale" / language / "LC_MESSAGES" / f"{domain}.po"]
    files += sorted(base.glob(f"apps/*/locale/{language}/LC_MESSAGES/{domain}.po"))
    return [path for path in files if path.exists()]


def translations(language: str) -> dict[str, set[str]]:
    """msgid → the translations the catalogs give it ('' when none does)."""
    found: dict[str, set[str]] = {}
    for path in catalog_files(language):
        for entry in parse_po(path):
            texts = found.setdefault(entry.msgid, set())
            if entry.msgstr and not entry.fuzzy:
                texts.add(entry.msgstr)
    return found


def english_only(language: str) -> set[str]:
    """The msgids that must not be seen on a page in `language`: no catalog translates them to
    the same text (an empty or fuzzy translation shows the English msgid)."""
    found = translations(language)
    # A text that is some msgid's translation is the language's own word (Italian "Note" is the
    # translation of "Notes", though it is also the English msgid "Note").
    own_words = set().union(*found.values())
    return {msgid for msgid, texts in found.items() if msgid not in texts and msgid not in own_words}
