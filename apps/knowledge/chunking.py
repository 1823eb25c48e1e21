"""Cutting a source's text into chunks for embedding: by section, then paragraph, then sentence,
about 800–1200 characters each with a short overlap, without breaking German abbreviations
("z. B.", "Abs. 2", "15. März") into sentences of their own."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

TARGET = 1000
MAX = 1200
MIN = 300
OVERLAP = 150

# Tokens that end with a dot without ending the sentence (lower-cased, dot stripped).
ABBREVIATIONS = frozenset(
    [
        "abs",
        "abschn",
        "anl",
        "art",
        "aufl",
        "az",
        "bd",
        "bzgl",
        "bzw",
        "ca",
        "d",
        "dgl",
        "dh",
        "dr",
        "evtl",
        "f",
        "ff",
        "gem",
        "ggf",
        "hr",
        "hrsg",
        "i",
        "ibd",
        "inkl",
        "insb",
        "jr",
        "kap",
        "lt",
        "max",
        "min",
        "mio",
        "mrd",
        "nr",
        "o",
        "od",
        "pkt",
        "prof",
        "rd",
        "rn",
        "rz",
        "s",
        "sog",
        "std",
        "str",
        "tel",
        "tz",
        "u",
        "ua",
        "usw",
        "v",
        "vgl",
        "vs",
        "z",
        "zb",
        "zzgl",
        "zt",
        "ziff",
    ]
)
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'»”)]*\s+(?=[\"'„«(\[]?[A-ZÄÖÜ0-9§])")
_PARAGRAPH = re.compile(r"\n\s*\n")
_SPACE = re.compile(r"[ \t\f\v]+")


@dataclass(frozen=True)
class ChunkSpec:
    ordinal: int
    heading: str
    text: str

    def embed_input(self, title: str) -> str:
        """What is embedded: the text under its document and section titles (better recall)."""
        head = " · ".join(part for part in (title.strip(), self.heading.strip()) if part)
        return f"{head}\n{self.text}" if head else self.text

    def content_hash(self, title: str) -> str:
        return hashlib.sha256(self.embed_input(title).encode()).hexdigest()


def normalize(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    lines = [_SPACE.sub(" ", line).strip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def sections_of(payload: dict) -> list[tuple[str, str]]:
    """(title, text) pairs from a payload; a payload without sections is one untitled section."""
    sections = payload.get("sections") or []
    pairs = [
        (str(s.get("title") or "")[:300], normalize(str(s.get("text") or "")))
        for s in sections
        if isinstance(s, dict)
    ]
    pairs = [(title, text) for title, text in pairs if text]
    if not pairs:
        text = normalize(str(payload.get("text") or ""))
        pairs = [("", text)] if text else []
    return pairs


def split_sentences(paragraph: str) -> list[str]:
    parts: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(paragraph):
        candidate = paragraph[start : match.start()].rstrip()
        last = candidate.rsplit(None, 1)[-1] if candidate.strip() else ""
        token = last.rstrip(".").lower().split(".")[-1]
        if last.endswith(".") and (
            token in ABBREVIATIONS or (token.isdigit() and len(token) <= 2) or len(token) == 1
        ):
            continue
        parts.append(candidate)
        start = match.end()
    tail = paragraph[start:].strip()
    if tail:
        parts.append(tail)
    return [p for p in parts if p]


def _hard_split(text: str) -> list[str]:
    """A "sentence" longer than MAX (tables, lists without dots): cut at word boundaries."""
    pieces, current = [], ""
    for word in text.split(" "):
        while len(word) > MAX:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:MAX])
            word = word[MAX:]
        if current and len(current) + 1 + len(word) > TARGET:
            pieces.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        pieces.append(current)
    return pieces


def _units(text: str) -> list[str]:
    """Paragraphs when they fit, else their sentences, else word-cut pieces."""
    units: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        if len(paragraph) <= MAX:
            units.append(paragraph)
            continue
        for sentence in split_sentences(paragraph.replace("\n", " ")):
            units.extend([sentence] if len(sentence) <= MAX else _hard_split(sentence))
    return units


def _tail(text: str) -> str:
    """The overlap carried into the next chunk: its last sentence(s), at most OVERLAP chars."""
    sentences = split_sentences(text.replace("\n", " "))
    tail = ""
    for sentence in reversed(sentences):
        candidate = f"{sentence} {tail}".strip()
        if len(candidate) > OVERLAP:
            break
        tail = candidate
    return tail


def _pack(units: list[str]) -> list[str]:
    chunks: list[str] = []
    current, carried = "", ""  # `carried`: the overlap from the previous chunk current starts with

    def close() -> None:
        nonlocal current, carried
        chunks.append(current)
        carried = _tail(current)
        current = carried

    for unit in units:
        if current != carried and len(current) + 2 + len(unit) > MAX:
            close()
        if current and len(current) + 2 + len(unit) > MAX:  # not even the overlap fits
            current, carried = "", ""
        current = f"{current}\n\n{unit}" if current else unit
        if len(current) >= TARGET:
            close()
    if current and current != carried:
        rest = current[len(carried) :].strip()
        if chunks and len(current) < MIN and len(chunks[-1]) + 2 + len(rest) <= MAX:
            chunks[-1] = f"{chunks[-1]}\n\n{rest}"
        else:
            chunks.append(current)
    return chunks


def chunk_payload(payload: dict) -> tuple[list[ChunkSpec], list[dict]]:
    """The chunks of a payload and its outline (section titles with their chunk ranges)."""
    specs: list[ChunkSpec] = []
    outline: list[dict] = []
    for title, text in sections_of(payload):
        first = len(specs)
        for piece in _pack(_units(text)):
            specs.append(ChunkSpec(ordinal=len(specs), heading=title, text=piece))
        outline.append(
            {"title": title, "chars": len(text), "first_chunk": first, "chunks": len(specs) - first}
        )
    return specs, outline


def full_text(payload: dict) -> str:
    """The plain text kept on the file for reading back (`context_get`) and re-indexing."""
    parts = []
    for title, text in sections_of(payload):
        parts.append(f"{title}\n\n{text}" if title else text)
    return "\n\n".join(parts)
