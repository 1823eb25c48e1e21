"""Whom a memory is about, so that deduplication and contradiction checks compare facts about the
same subject only: "Mandant Schneider KG: Unterlagen kommen per Post." is never a duplicate of the
same sentence about Müller GmbH, and "Mandant 10003 zahlt per Lastschrift." never contradicts the
same about client 10004 just because the numbers differ.

A memory's subject is its explicit links (client, case, person: compared in SQL by
`similarity.nearest`) plus what its text names. No German NER model is available offline, so the
text is read by rules (measured in `tests/memory/test_subjects.py`):

* companies: one to four capitalized words before a legal form (GmbH, KG, AG, OHG, GbR, UG, e.K.,
  PartG mbB, GmbH & Co. KG …): "Schneider KG", "Bäckerei Huber GmbH & Co. KG";
* persons: a salutation and a name ("Herr X", "Frau Dr. Anna Schmidt", "Herrn von Below"), the
  neutralization gate's rule pass for the rest (a known first name and a surname, signatures …);
* "Mandant(in) X": a client named without its legal form;
* client numbers of the office's scheme (`apps.clients.numbering`: with its prefix, or after a cue
  such as "Mandant", "Mandanten-Nr."); Aktenzeichen (after "Az.", "Akte" …, or shaped like a
  court's "2 O 123/24", "IX ZR 12/20", or the office's "2027/0042").

Mentions of a linked subject (the linked client's name or number, the case's reference, the
linked person's name) add nothing: the link says it already. Two memories are about the same
subject when every mention of one matches a mention of the other (`same`); a text naming nobody
is about the same subject only as another naming nobody. When in doubt, different: a missed merge
costs a second row, a wrong one loses a fact.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from apps.llm import rules

_UP, _LOW = rules._UP, rules._LOW

# Legal forms, longest first (the alternation takes the first that matches).
_FORMS = (
    r"GmbH[ \t]*&[ \t]*Co\.?[ \t]*KGaA",
    r"GmbH[ \t]*&[ \t]*Co\.?[ \t]*KG",
    r"AG[ \t]*&[ \t]*Co\.?[ \t]*KG",
    r"UG[ \t]*\(haftungsbeschränkt\)[ \t]*&[ \t]*Co\.?[ \t]*KG",
    r"UG[ \t]*\(haftungsbeschränkt\)",
    r"PartG[ \t]*mbB",
    r"PartGmbB",
    r"PartG",
    r"gGmbH",
    r"GmbH",
    r"KGaA",
    r"OHG",
    r"oHG",
    r"GbR",
    r"AG",
    r"KG",
    r"UG",
    r"SE",
    r"eG",
    r"e\.[ \t]?K(?:fm|fr)?\.",
    r"e\.[ \t]?V\.",
    r"mbB",
    r"mbH",
    r"Ltd\.?",
    r"Inc\.?",
    r"S\.[ \t]?r\.[ \t]?l\.",
    r"S\.[ \t]?p\.[ \t]?A\.",
)
LEGAL_FORM = re.compile(rf"(?<![\w&.])(?P<form>{'|'.join(_FORMS)})(?![\w])")
# The words of a company's name before its legal form, read backwards from it.
_CAP = rf"(?:[{_UP}0-9][\w'’]*(?:-[\w'’]+)*\.?)"
_NAME_BEFORE = re.compile(rf"(?P<name>{_CAP}(?:(?:[ \t]*(?:&|\+|und)[ \t]*|[ \t]+){_CAP}){{0,3}})[ \t,]*$")
# Capitalized words that precede or stand in a name's place without being part of it.
STOP_WORDS = rules.STOP_WORDS | frozenset(
    re.findall(
        r"\S+",
        """Mandant Mandantin Mandanten Mdt Firma Unternehmen Gesellschaft Kunde Kundin Kunden Auch Nur
    Immer Laut Wegen Seit Bis Ab Heute Morgen Gestern Jetzt Künftig Ab Bei Beim Durch Gegen Ohne
    Um Nie Niemals Alle Jede Jeder Jedes Diese Dieser Dieses Unsere Unser Meine Mein Wenn Falls
    Dass Weil Da Hier Dort Neu Neue Alt Alte Akte Az Aktenzeichen Herr Herrn Frau Hr Fr Dr Prof
    Familie Eheleute Sehr Geehrte Geehrter Liebe Lieber Hallo Termin Termine Post Mail E-Mail
    Unterlagen Belege Rechnungen Zahlung Zahlungen Mahnung Lastschrift Überweisung Vormittags
    Nachmittags Abends Morgens Freitags Montags Dienstags Mittwochs Donnerstags Samstags Sonntags""",
    )
)
_SALUTATION = re.compile(
    rf"(?<![\w])(?P<sal>Herrn?|Frau|Hr\.|Fr\.)[ \t]+{rules._TITLES}"
    rf"(?P<name>(?:[{_UP}]\.[ \t]*|[{_UP}][\w'’]*(?:-[{_UP}][\w'’]*)*[ \t]+)?"
    rf"(?:{rules._PARTICLE}[ \t]+)?[{_UP}][\w'’]*(?:-[{_UP}][\w'’]*)*)(?![\w])"
)
_CLIENT_CUE = re.compile(
    rf"(?<![\w])(?P<cue>Mandant(?:in)?|Mdt\.)[ \t]*:?[ \t]+(?!{rules._TITLES}(?:Herrn?|Frau|Hr\.|Fr\.)[ \t])"
    rf"(?P<name>[{_UP}][\w'’]*(?:-[{_UP}][\w'’]*)*(?:[ \t]+[{_UP}][\w'’]*(?:-[{_UP}][\w'’]*)*)?)(?![\w])"
)
_NUMBER_CUE = (
    r"(?:Mandant(?:in|en)?(?:[ \t-]?(?:[Nn]ummer|[Nn]r\.?))?|Mdt\.?(?:[ \t-]?Nr\.?)?|"
    r"Mandanten-?[Nn]r\.?|Kunden(?:nummer|-?[Nn]r\.?)|Kd\.?[ \t-]?Nr\.?|Nr\.|#)"
)
# A court's Aktenzeichen ("2 O 123/24", "IX ZR 12/20", "1 BvR 2345/19") and the office's case
# references ("2027/0042").
_NOT_A_REGISTER = r"(?!(?:Uhr|Euro|EUR|Mio|Mrd|Tsd|Std|Min|Jahr|Jahre|Tag|Tage|Mal|Kg|Km)\b)"
_AZ = (
    rf"(?:(?:[IVX]{{1,5}}|\d{{1,3}})[ \t]?{_NOT_A_REGISTER}[A-Z][A-Za-z]{{0,3}}[ \t]?\d{{1,5}}/\d{{2,4}}"
    r"|\d{4}/\d{3,5})"
)
_AZ_SHAPE = re.compile(rf"(?<![\w/.]){_AZ}(?![\w/])")
_AZ_CUE = re.compile(
    r"(?<![\w])(?:Az\.?|AZ|Aktenzeichen|Akte|Geschäftszeichen|Gz\.?|GZ|Vorgang|Verfahren|Fall)"
    rf"[ \t]*:?[ \t]*(?:Nr\.?[ \t]*)?(?P<ref>{_AZ}(?![\w/])|[\w][\w./-]*\d[\w./-]*)"
)
_GENDER = {"Herr": "m", "Herrn": "m", "Hr.": "m", "Frau": "f", "Fr.": "f", "Mandantin": "f"}


def _fold(word: str) -> str:
    return word.strip(" \t.,;:").casefold()


def _form_key(form: str) -> str:
    return re.sub(r"[\s.()]|haftungsbeschränkt", "", form).casefold()


def _az_key(ref: str) -> str:
    return re.sub(r"\s+", "", ref).rstrip(".,;:/-").casefold()


@dataclass(frozen=True)
class Mention:
    """One subject named in a text. `kind`: "org" (a company: `words` + `form`), "person"
    (`surname`, `first`, `gender`), "name" (named without a form or salutation: `words`),
    "number" (a client number) or "az" (an Aktenzeichen, `value`)."""

    kind: str
    words: tuple[str, ...] = ()
    form: str = ""
    surname: str = ""
    first: str = ""
    gender: str = ""
    value: str = ""
    span: tuple[int, int] = field(default=(0, 0), compare=False)

    @property
    def anchors(self) -> tuple[str, ...]:
        """Keys two matching mentions always share (the candidates' SQL prefilter)."""
        if self.kind in ("number", "az"):
            return (f"{self.kind}:{self.value}",)
        if self.kind == "person":
            return tuple(f"n:{w}" for w in (self.surname, self.first) if w)
        return (f"n:{self.words[-1]}",) if self.words else ()


def _suffix(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return bool(short) and long[-len(short) :] == short


def _compatible(x: str, y: str) -> bool:
    return not x or not y or x == y


def _same_first(a: str, b: str) -> bool:
    if not a or not b:
        return True
    if len(a) == 1 or len(b) == 1:  # an initial
        return a[0] == b[0]
    return a == b


def matches(a: Mention, b: Mention) -> bool:
    """Whether two mentions can name the same subject."""
    if a.kind in ("number", "az") or b.kind in ("number", "az"):
        return a.kind == b.kind and a.value == b.value
    if a.kind == "person" and b.kind == "person":
        if a.surname and b.surname:
            same_name = a.surname == b.surname and _same_first(a.first, b.first)
        else:
            same_name = bool(a.first) and a.first == b.first
        return same_name and _compatible(a.gender, b.gender)
    if a.kind == "org" and b.kind == "org":
        return a.form == b.form and _suffix(a.words, b.words)
    if "name" in (a.kind, b.kind):
        name, other = (a, b) if a.kind == "name" else (b, a)
        if other.kind == "person":
            return (
                len(name.words) <= 2
                and name.words[-1] == other.surname
                and _compatible(name.gender, other.gender)
                and (len(name.words) == 1 or _same_first(name.words[0], other.first))
            )
        return _suffix(name.words, other.words)
    return False


@dataclass(frozen=True)
class Subjects:
    """What a text names (`mentions`), besides the subjects it is linked to, and the text without
    those names (`rest`: what it claims, for the numbers-dates-negation comparison)."""

    mentions: tuple[Mention, ...]
    rest: str

    @property
    def anchors(self) -> list[str]:
        return sorted({a for m in self.mentions for a in m.anchors})


def same(a: Subjects, b: Subjects) -> bool:
    """Whether two texts (with the same links) are about the same subject: every mention of each
    matches one of the other; naming nobody matches only naming nobody."""
    return all(any(matches(x, y) for y in b.mentions) for x in a.mentions) and all(
        any(matches(y, x) for x in a.mentions) for y in b.mentions
    )


# --- reading a text -----------------------------------------------------------------------------
def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in taken)


def _org_words(before: str) -> tuple[str, ...] | None:
    m = _NAME_BEFORE.search(before)
    if m is None:
        return None
    words = [w for w in re.split(r"[ \t]+|(?<=\S)(?=[&+])|(?<=[&+])(?=\S)", m.group("name")) if w]
    words = [w for w in words if w not in ("&", "+", "und")]
    # Only what follows the last word that is not part of a name ("Mandant", "Die", "Laut" …).
    for i in range(len(words) - 1, -1, -1):
        if words[i].rstrip(".") in STOP_WORDS:
            words = words[i + 1 :]
            break
    folded = tuple(_fold(w) for w in words if _fold(w))
    if not any(w[:1].isalpha() for w in folded):  # "wiegt 5 KG": a weight, no company
        return None
    return folded


def _orgs(text: str) -> list[Mention]:
    found = []
    for m in LEGAL_FORM.finditer(text):
        before = text[max(0, m.start() - 120) : m.start()]
        words = _org_words(before)
        if words is None:
            continue
        name = _NAME_BEFORE.search(before)
        start = m.start() - (len(before) - name.start()) if name else m.start()
        found.append(Mention("org", words=words, form=_form_key(m.group("form")), span=(start, m.end())))
    return found


def _person(sal: str, name: str, span: tuple[int, int]) -> Mention | None:
    words = [w for w in re.split(r"[ \t]+", name.strip()) if w]
    words = [w for w in words if w.casefold() not in rules._PARTICLES]
    if not words:
        return None
    surname = words[-1]
    if surname.rstrip(".") in STOP_WORDS and len(surname) > 1:
        return None
    first = words[0].rstrip(".") if len(words) > 1 else ""
    return Mention(
        "person", surname=_fold(surname), first=_fold(first), gender=_GENDER.get(sal, ""), span=span
    )


def _salutations(text: str) -> list[Mention]:
    found = []
    for m in _SALUTATION.finditer(text):
        name = m.group("name")
        words = name.split()
        # "Herrn Müller Bescheid geben": a second word is a surname only after a first name.
        first = words[0]
        if (
            len(words) > 1
            and first.rstrip(".") not in rules.FIRST_NAMES
            and not first.endswith(".")
            and first.casefold() not in rules._PARTICLES
        ):
            name = first
        person = _person(m.group("sal"), name, (m.start(), m.start("name") + len(name)))
        if person is not None:
            found.append(person)
    return found


def _client_cues(text: str) -> list[Mention]:
    found = []
    for m in _CLIENT_CUE.finditer(text):
        words = m.group("name").split()
        if words[0] in STOP_WORDS:
            continue
        if len(words) > 1 and words[1] in STOP_WORDS:
            words = words[:1]
        end = m.start("name") + len(" ".join(words))
        found.append(
            Mention(
                "name",
                words=tuple(_fold(w) for w in words),
                gender=_GENDER.get(m.group("cue"), ""),
                span=(m.start(), end),
            )
        )
    return found


def _number_pattern(scheme: dict) -> re.Pattern:
    prefix = re.escape(scheme.get("prefix") or "")
    width = max(1, min(int(scheme.get("width") or 1), 12))
    digits = rf"{prefix}\d{{{min(width, 3)},}}"
    alternatives = [rf"(?<![\w]){_NUMBER_CUE}[ \t]*:?[ \t]*(?P<cued>{digits})(?![\w/.,]\w)"]
    alternatives.append(rf"\((?P<paren>{prefix}\d{{{width},}})\)")
    if prefix:
        alternatives.append(rf"(?<![\w]){prefix}(?P<bare>\d{{{width},}})(?![\w])")
    return re.compile("|".join(alternatives))


def _numbers(text: str, scheme: dict) -> list[Mention]:
    found = []
    prefix = scheme.get("prefix") or ""
    for m in _number_pattern(scheme).finditer(text):
        group = next(g for g in ("cued", "paren", "bare") if m.group(g))
        value = m.group(group) if group != "bare" else prefix + m.group(group)
        found.append(Mention("number", value=value.casefold(), span=(m.start(group), m.end(group))))
    return found


def _references(text: str) -> list[Mention]:
    found = [
        Mention("az", value=_az_key(m.group("ref")), span=(m.start(), m.end()))
        for m in _AZ_CUE.finditer(text)
    ]
    found += [
        Mention("az", value=_az_key(m.group(0)), span=(m.start(), m.end())) for m in _AZ_SHAPE.finditer(text)
    ]
    return found


def _gate_names(text: str) -> list[Mention]:
    """Persons the neutralization gate's rule pass finds (a known first name and a surname, a
    signature, a labelled field "Ansprechpartner: …")."""
    found = []
    for start, end, kind in rules.find(text):
        if kind != "NAME":
            continue
        words = text[start:end].replace(",", " ").split()
        if "," in text[start:end]:
            words = words[1:] + words[:1]  # "Müller, Klaus"
        first = words[0] if len(words) > 1 and words[0] in rules.FIRST_NAMES else ""
        if len(words) == 1 and words[0] in rules.FIRST_NAMES:
            found.append(Mention("person", first=_fold(words[0]), span=(start, end)))
            continue
        person = _person("", " ".join(([first] if first else []) + words[-1:]), (start, end))
        if person is not None:
            found.append(person)
    return found


def office_scheme() -> dict:
    """The office's client number scheme (an instance setting: one query; read it once per check)."""
    from apps.clients.numbering import office_scheme as scheme

    return scheme()


def read(text: str, *, scheme: dict | None = None) -> list[Mention]:
    """Every subject named in `text`, in the order of the rules (a span is taken once)."""
    scheme = scheme if scheme is not None else office_scheme()
    mentions: list[Mention] = []
    taken: list[tuple[int, int]] = []
    passes = (_references, lambda t: _numbers(t, scheme), _orgs, _salutations, _client_cues, _gate_names)
    for found in passes:
        for mention in found(text):
            if not _overlaps(mention.span, taken):
                mentions.append(mention)
                taken.append(mention.span)
    return sorted(mentions, key=lambda m: m.span)


def _linked(client: Any, case: Any, person: Any, scheme: dict) -> list[Mention]:
    """The mentions a text may make of its linked subjects without naming anyone new."""
    known: list[Mention] = []
    for linked_client in {c.pk: c for c in (client, getattr(case, "client", None)) if c is not None}.values():
        name = linked_client.name
        known += [m for m in read(name, scheme=scheme) if m.kind != "number"]
        words = tuple(_fold(w) for w in name.split() if _fold(w))
        if words:
            known.append(Mention("name", words=words))
            known.append(Mention("person", surname=words[-1], first=words[0] if len(words) > 1 else ""))
        if linked_client.client_number:
            known.append(Mention("number", value=linked_client.client_number.casefold()))
    if case is not None and case.reference:
        known.append(Mention("az", value=_az_key(case.reference)))
    if person is not None:
        words = [_fold(w) for w in (getattr(person, "full_name", "") or "").split() if _fold(w)]
        if words:
            known.append(Mention("person", surname=words[-1], first=words[0] if len(words) > 1 else ""))
    return known


def _mask(text: str, spans: Iterable[tuple[int, int]]) -> str:
    out, pos = [], 0
    for start, end in sorted(spans):
        out.append(text[pos:start])
        out.append(" ")
        pos = max(pos, end)
    out.append(text[pos:])
    return "".join(out)


def of(
    text: str, *, client: Any = None, case: Any = None, person: Any = None, scheme: dict | None = None
) -> Subjects:
    """The subjects `text` names besides its links (client, case, person rows), and its rest."""
    scheme = scheme if scheme is not None else office_scheme()
    mentions = read(text, scheme=scheme)
    known = _linked(client, case, person, scheme) if (client or case or person) else []
    new = tuple(m for m in mentions if not any(matches(m, k) for k in known))
    return Subjects(new, _mask(text, (m.span for m in mentions)))


def of_memory(memory: Any, text: str | None = None, *, scheme: dict | None = None) -> Subjects:
    return of(
        memory.text if text is None else text,
        client=memory.subject_client,
        case=memory.subject_case,
        person=memory.subject_person,
        scheme=scheme,
    )
