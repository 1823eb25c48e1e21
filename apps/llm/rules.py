"""The rule pass of the neutralization gate: personal data of third parties that the office's
records do not name (the other side's lawyer, a tenant, an heir, the clerk at the tax office),
found by the shape of German letters and e-mails.

No German NER model is available offline, so these are rules, measured on a German test set
(`tests/llm/data/neutralize_de.txt`, `bench/neutralize.py`):

- names after a salutation ("Herr/Frau/Herrn Dr. …"), in a signature after the closing formula,
  after a field label ("Ansprechpartner:", "Kontoinhaber:", "Von:" …) and a birth name ("geb. …")
- a date of birth ("geb. am …", "Geburtsdatum: …"), street and house number, postal code and city
- e-mail addresses, phone numbers, IBAN, BIC, Steuer-ID and Steuernummer

`find(text)` answers `(start, end, kind)` spans; the gate merges them with the office's own names
and replaces them. A name found once is also found alone later in the same text and gate
("Frau Sabine Weber … Frau Weber … Weber teilte mit"): `names_in` yields the learned literals.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator


def _words(text: str) -> list[str]:
    return text.split()


# --- shared pieces ------------------------------------------------------------------------------
_UP = "A-ZÄÖÜÉÇŁŚŻŹĆŠŽČŘİŞĞ"
_LOW = "a-zäöüßéèáàóòíìúùçñąćęłńśźżšžčřěůıışğ"
_WORD = rf"[{_UP}][{_LOW}]+(?:-[{_UP}][{_LOW}]+)*"  # Müller, Schmidt-Weber
# Capitalized words that follow a salutation or stand in a name's place without being names.
STOP_WORDS = frozenset(
    _words(
        """Sie Ihnen Ihr Ihre Ihren Ihrem Ihrer Ihres Du Dir Dich Dein Deine Euch Euer Eure
    Damen Herren Kollegin Kollege Kollegen Mandantin Mandant Mandanten Vorsitzende Vorsitzender
    Präsident Präsidentin Direktor Direktorin Ministerin Minister Bürgermeister Bürgermeisterin
    Und Oder Der Die Das Den Dem Des Ein Eine Einen Einem Einer Mit Von Vom Zu Zum Zur Bei Im In
    Am An Auf Aus Für Nach Über Unter Wir Ich Er Es Uns Bitte Danke Gruß Grüße Anlage Anlagen
    Betreff Datum Seite Telefon Telefax Fax Mobil Tel Mail Email Kanzlei Steuerkanzlei Team
    Finanzamt Amtsgericht Landgericht Oberlandesgericht Gericht Rechtsanwälte Steuerberater
    Steuerberaterin Rechtsanwalt Rechtsanwältin Notar Notarin Partner Partnerin Geschäftsführer
    Geschäftsführerin Sachbearbeiter Sachbearbeiterin Abteilung Buchhaltung Lohnbuchhaltung
    Sekretariat Empfang Verwaltung Januar Februar März April Mai Juni Juli August September
    Oktober November Dezember Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag
    Hinweis Hinweise Rückfragen Kontakt Bank Sparkasse Volksbank GmbH AG KG Co Steuernummer
    Steuer Umsatzsteuer Einkommensteuer Bescheid Frist Termin Unterlagen Vollmacht Rechnung"""
    )
)
_TOKEN = rf"(?!(?:{'|'.join(sorted(STOP_WORDS, key=len, reverse=True))})\b){_WORD}"
_PARTICLE = r"(?:von[ \t]+der|van[ \t]+der|von|van|de|zu|vom|zur|ter|den|di|da|del)"
_PARTICLES = frozenset(_words("von van de zu vom zur ter den di da del"))
_TITLES = r"(?:(?:Prof\.|Dr\.|Dres\.|Mag\.|Ing\.|DI|MBA|LL\.M\.|Dipl\.-[A-Z][a-zä]+\.|med\.|jur\.|rer\.[ \t]?pol\.|rer\.[ \t]?nat\.|h\.[ \t]?c\.|mult\.)[ \t]*)*"
_ROLE = (
    r"(?:Rechtsanw[aä]lt(?:in)?|Steuerberater(?:in)?|Notar(?:in)?|Wirtschaftspr[üu]fer(?:in)?|"
    r"Kolleg(?:e|in)|Sachbearbeiter(?:in)?|(?:Ober)?[Rr]egierungs(?:rat|rätin)|Amtsr(?:at|ätin)|"
    r"Steuer(?:amtmann|amtfrau|inspektor(?:in)?|oberinspektor(?:in)?)|Gerichtsvollzieher(?:in)?|"
    r"Richter(?:in)?(?:[ \t]am[ \t]\w+)?|Konsul(?:in)?|Pfarrer(?:in)?)"
)
# A person's name: optional first name(s) from the list, then the surname (one word, or a
# particle and a word). Without a known first name only one word is taken: "Herrn Müller
# Bescheid geben" must not swallow "Bescheid".
_FULL = rf"(?:{_TOKEN}(?:[ \t]+{_TOKEN})?[ \t]+)?(?:{_PARTICLE}[ \t]+)?{_TOKEN}"

SALUTATION = re.compile(
    rf"(?<![\w])(?:Herrn?|Frau|Hr\.|Fr\.|Familie|Eheleute|Notar(?:in)?|Rechtsanw[aä]lt(?:in)?|"
    rf"Steuerberater(?:in)?)[ \t]+{_TITLES}"
    rf"(?:{_ROLE}[ \t]+{_TITLES})?(?P<name>{_FULL})(?![\w])"
)
CLOSING = re.compile(
    r"(?im)^[ \t]*(?:mit[ \t]+)?(?:freundlichen|freundliche|besten|beste|herzlichen|herzliche|"
    r"kollegialen|viele|liebe|sonnige|schöne)[ \t]+grü(?:ß|ss)en?[ \t,.!]*$|"
    r"^[ \t]*(?:hochachtungsvoll|mfg|lg|vg|gruß|grüße|viele[ \t]grüße|beste[ \t]grüße|"
    r"herzliche[ \t]grüße|liebe[ \t]grüße|best[ \t]regards|kind[ \t]regards|regards|cheers|--)[ \t,.!]*$"
)
_SIGNATURE_LINE = re.compile(
    rf"^[ \t]*(?:(?:i\.[ \t]?A\.|i\.[ \t]?V\.|ppa\.|gez\.)[ \t]+)?{_TITLES}"
    rf"(?P<name>{_TOKEN}(?:[ \t]+(?:{_PARTICLE}[ \t]+)?{_TOKEN}){{0,2}})[ \t]*$"
)
# "Frau" / "Herrn" alone on a line, the name on the next one (the address field of a letter).
ADDRESS_NAME = re.compile(
    rf"(?m)^[ \t]*(?:Herrn?|Frau|Familie|Eheleute)[ \t]*\n[ \t]*{_TITLES}"
    rf"(?P<name>{_TOKEN}(?:[ \t]+(?:{_PARTICLE}[ \t]+)?{_TOKEN}){{0,2}})[ \t]*$"
)
LABELLED = re.compile(
    r"(?m)(?:^|(?<=[;|]))[ \t]*(?:Name|Vorname|Nachname|Familienname|Geburtsname|Ansprechpartner(?:in)?|"
    r"Kontoinhaber(?:in)?|Empfänger(?:in)?|Absender(?:in)?|Antragsteller(?:in)?|Erblasser(?:in)?|"
    r"Ehegatt(?:e|in)|Ehefrau|Ehemann|Vermieter(?:in)?|Mieter(?:in)?|Arbeitnehmer(?:in)?|"
    r"Zeug(?:e|in)|Betroffene[rs]?|Schuldner(?:in)?|Gläubiger(?:in)?|Erbe|Erbin|Kind|"
    r"Von|An|Cc|Bcc|From|To|"
    r"[A-ZÄÖÜ][a-zäöüß]*(?:nehmer|geber|pflichtige[rs]?|berechtigte[rs]?|inhaber|steller|gegner|"
    r"kläger|beklagte[rs]?|bevollmächtigte[rs]?|vertreter|schuldner|gläubiger)(?:in)?)[ \t]*:[ \t]*"
    rf"{_TITLES}(?P<name>{_TOKEN}(?:,[ \t]*{_TOKEN}|(?:[ \t]+(?:{_PARTICLE}[ \t]+)?{_TOKEN}){{0,2}}))"
    r"(?![\w@])"
)
GREETING = re.compile(
    rf"(?<![\w])(?:Liebe[rs]?|Hallo|Hi|Moin|Servus|Guten[ \t]Tag|Guten[ \t]Morgen)[ \t]+(?P<name>{_TOKEN}(?:[ \t]+{_TOKEN})?)(?=[ \t]*[,!\n])"
)
BIRTH_NAME = re.compile(rf"(?<![\w])geb(?:\.|oren(?:e|er)?)[ \t]+(?!am\b)(?P<name>{_WORD})(?![\w])")

_MONTH = r"(?:Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember)"
_DATE = rf"(?:\d{{1,2}}\.[ \t]?\d{{1,2}}\.[ \t]?(?:19|20)?\d{{2}}|\d{{1,2}}\.[ \t]?{_MONTH}[ \t]+\d{{4}}|(?:19|20)\d{{2}}-\d{{2}}-\d{{2}})"
BIRTH_DATE = re.compile(
    rf"(?i:geb(?:\.|oren)(?:[ \t]+am)?|geburtsdatum|geb\.-datum|geburtstag|\*)[ \t]*:?[ \t]*(?P<date>{_DATE})(?!\d)"
)

_STREET_SUFFIX = (
    r"(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|steig|pfad|markt|"
    r"graben|wall|kamp|twiete|stieg|berg|hof|garten|feld|winkel|anger|zeile|promenade|brücke)"
)
STREET = re.compile(
    rf"(?<![\w])(?:[{_UP}][{_LOW}-]*?{_STREET_SUFFIX}|"
    rf"(?:Am|An[ \t]der|An[ \t]den|Auf[ \t]der|Auf[ \t]dem|Im|In[ \t]der|In[ \t]den|Unter[ \t]den|"
    rf"Zum|Zur|Alte[rs]?|Neue[rs]?|Große[rs]?|Kleine[rs]?|Hohe[rs]?|Lange[rs]?)[ \t]+"
    rf"(?:[{_UP}][{_LOW}]{{1,8}}(?:e|en|er|es)[ \t]+)?[{_UP}][{_LOW}-]+|"
    rf"[{_UP}][{_LOW}]+(?:-[{_UP}][{_LOW}]+)*[ \t-](?:Straße|Str\.|Weg|Platz|Allee|Ring|Damm|Gasse)|"
    rf"[{_UP}][{_LOW}]+(?:e|en|er|es)[ \t]+[{_UP}][{_LOW}-]*?{_STREET_SUFFIX})"
    r"[ \t]+\d{1,3}[ \t]?[a-zA-Z]?(?:[ \t]?[-/][ \t]?\d{1,3}[a-z]?)?(?![\d.,]\d|\w)"
)
_NOT_A_CITY = (
    "Euro|EUR|Stück|Mitarbeiter|Mitarbeitende|Einwohner|Kunden|Mandanten|Menschen|Personen|"
    "Seiten|Jahre|Tage|Punkte|Exemplare|Fälle|Akten|Dokumente|Stunden|Minuten|Kilometer|Meter|Liter"
)
POSTAL_CITY = re.compile(
    rf"(?<![\w.,/-])(?:D-)?\d{{5}}[ \t]+(?!(?:{_NOT_A_CITY})\b)[{_UP}][{_LOW}]+(?:-[{_UP}][{_LOW}]+)*"
    rf"(?:[ \t](?:am|an[ \t]der|im|in|ob[ \t]der|bei|a\.[ \t]?d\.|v\.[ \t]?d\.[ \t]?H\.)[ \t][{_UP}][\w.]+"
    rf"|[ \t]\([{_UP}][\w. ]+\))?(?![\w])"
)

EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}(?![\w-])")
IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])")
_COUNTRIES = "DE|AT|CH|LI|LU|NL|BE|FR|IT|ES|PT|GB|IE|DK|SE|NO|FI|PL|CZ|SK|HU|SI|HR|GR|US|TR"
BIC = re.compile(rf"(?<![A-Za-z0-9])[A-Z]{{4}}(?:{_COUNTRIES})[A-Z0-9]{{2}}(?:[A-Z0-9]{{3}})?(?![A-Za-z0-9])")
_BIC_LABEL = re.compile(r"(?i)(?:BIC|SWIFT)(?:[- ]?Code)?[ \t:]*$")
# Steuernummer: state formats (12/345/67890, 123/456/78901) and the 13-digit federal form.
STEUERNUMMER = re.compile(r"(?<![\d/])(?:\d{2,3}/\d{3,4}/\d{4,5}|\d{13})(?![\d/])")
# Steuer-ID: 11 digits, first not 0, optionally grouped 2-3-3-3.
STEUER_ID = re.compile(r"(?<!\d)(?<!\d[.,])(?:[1-9]\d{10}|[1-9]\d \d{3} \d{3} \d{3})(?!\d|[.,]\d)")
UST_ID = re.compile(r"(?<![A-Za-z0-9])DE ?\d{3} ?\d{3} ?\d{3}(?!\d)")
PHONE = re.compile(
    r"(?<![\w/])(?<!\d[.,])(?:\+\d{1,3}[ ]?(?:\(0\)[ ]?)?|0|\(0\d{2,5}\)[ ]?)\d{1,5}(?:[ ]?[/-][ ]?\d{2,}|[ ]\d{2,}|\d+){0,5}"
    r"(?:[ ]?-[ ]?\d{1,5})?(?![\w/]|[.,]\d)"
)
MIN_PHONE_DIGITS = 7
# Digits that look like a phone number but are dates, amounts or references in context.
_PHONE_CONTEXT = re.compile(
    r"(?i)(?:tel|telefon|fon|phone|mobil|handy|fax|telefax|durchwahl|ruf)[.:\w ]{0,12}$"
)

# Kinds the rule pass produces, in the gate's priority order after the office's own names.
KINDS = (
    "EMAIL",
    "IBAN",
    "BIC",
    "USTID",
    "STEUERNUMMER",
    "STEUER_ID",
    "GEBURTSDATUM",
    "TELEFON",
    "NAME",
    "GEBURTSNAME",
    "ANSCHRIFT",
    "ORT",
)

Span = tuple[int, int, str]


def _is_iban(raw: str) -> bool:
    """A valid check sum (ISO 13616, mod 97), or the German shape (DE + 20 digits) even with a
    typo in it: a creditor id (DE98ZZZ…) or a reference number is no IBAN."""
    if len(raw) < 15:
        return False
    if raw.startswith("DE") and len(raw) == 22 and raw[2:].isdigit():
        return True
    digits = "".join(str(int(c, 36)) for c in raw[4:] + raw[:4])
    return digits.isdigit() and int(digits) % 97 == 1


def _phone_spans(text: str) -> Iterator[Span]:
    for m in PHONE.finditer(text):
        raw = m.group(0).rstrip(" -/")
        digits = sum(c.isdigit() for c in raw)
        if digits < MIN_PHONE_DIGITS or digits > 15:
            continue
        compact = re.sub(r"\D", "", raw)
        starts_like_phone = raw.startswith(("+", "(")) or compact.startswith("0")
        labelled = _PHONE_CONTEXT.search(text, max(0, m.start() - 24), m.start()) is not None
        grouped = any(c in raw for c in " /-+")
        if labelled or (starts_like_phone and grouped):
            yield m.start(), m.start() + len(raw), "TELEFON"


_CLAUSE_END = re.compile(r"[ \t]*(?:[,.;:!?)<(\n·|/–-]|$|(?:und|oder|sowie|bzw\.|u\.)[ \t])")


def _trimmed(text: str, m: re.Match) -> Span:
    """A salutation's name: with its first name when that is a known one or the name ends the
    clause ("Herr Jost Kaltenbach,"); otherwise only the first word ("Herrn Müller Bescheid")."""
    start, end = m.start("name"), m.end("name")
    words = m.group("name").split()
    known = words[0].split("-")[0] in FIRST_NAMES or words[0] in _PARTICLES
    if len(words) > 1 and not known and not _CLAUSE_END.match(text, end):
        end = start + len(words[0])
    return start, end, "NAME"


def _signature_spans(text: str) -> Iterator[Span]:
    for m in CLOSING.finditer(text):
        pos, seen = m.end(), 0
        while seen < 3 and pos < len(text):
            end = text.find("\n", pos + 1)
            end = len(text) if end < 0 else end
            line = text[pos:end].lstrip("\n")
            start = end - len(line)
            pos = end
            if not line.strip():
                continue
            seen += 1
            found = _SIGNATURE_LINE.match(line)
            if found is not None and (
                " " in found.group("name") or found.group("name").split("-")[0] in FIRST_NAMES
            ):
                yield start + found.start("name"), start + found.end("name"), "NAME"
                break


def find(text: str) -> list[Span]:
    """Every candidate span of the rule pass, unmerged (the gate resolves overlaps)."""
    spans: list[Span] = []
    add = spans.append
    for m in EMAIL.finditer(text):
        add((m.start(), m.end(), "EMAIL"))
    for m in IBAN.finditer(text):
        if _is_iban(m.group(0).replace(" ", "")):
            add((m.start(), m.end(), "IBAN"))
    for m in BIC.finditer(text):
        raw = m.group(0)
        labelled = _BIC_LABEL.search(text, max(0, m.start() - 16), m.start()) is not None
        if labelled or any(c.isdigit() for c in raw) or raw.endswith("XXX"):
            add((m.start(), m.end(), "BIC"))
    for m in UST_ID.finditer(text):
        add((m.start(), m.end(), "USTID"))
    for m in STEUERNUMMER.finditer(text):
        add((m.start(), m.end(), "STEUERNUMMER"))
    for m in STEUER_ID.finditer(text):
        add((m.start(), m.end(), "STEUER_ID"))
    for m in BIRTH_DATE.finditer(text):
        add((m.start("date"), m.end("date"), "GEBURTSDATUM"))
    spans.extend(_phone_spans(text))
    if (
        "Herr" in text
        or "Frau" in text
        or "Hr." in text
        or "Fr." in text
        or "Famil" in text
        or "Ehe" in text
        or "geehrte" in text
    ):
        for m in SALUTATION.finditer(text):
            add(_trimmed(text, m))
    for m in GREETING.finditer(text):
        if m.group("name").split()[0].split("-")[0] in FIRST_NAMES:
            add((m.start("name"), m.end("name"), "NAME"))
    for m in LABELLED.finditer(text):
        add((m.start("name"), m.end("name"), "NAME"))
    spans.extend(_signature_spans(text))
    for m in ADDRESS_NAME.finditer(text):
        add((m.start("name"), m.end("name"), "NAME"))
    for m in _FIRST_NAME.finditer(text):
        add((m.start("name"), m.end("name"), "NAME"))
    if "geb" in text:
        for m in BIRTH_NAME.finditer(text):
            add((m.start("name"), m.end("name"), "GEBURTSNAME"))
    for m in STREET.finditer(text):
        add((m.start(), m.end(), "ANSCHRIFT"))
    for m in POSTAL_CITY.finditer(text):
        add((m.start(), m.end(), "ORT"))
    return spans


def names_in(value: str) -> Iterator[str]:
    """What a found name teaches the gate: the name as written and its surname (the last word,
    "Schmidt" of "Dr. Hans Schmidt", both parts of "Müller, Klaus" reversed)."""
    value = value.strip()
    if "," in value:
        surname = value.split(",")[0].strip()
    else:
        parts = value.split()
        surname = parts[-1] if parts else ""
    yield value
    if surname and surname not in STOP_WORDS and surname not in FIRST_NAMES and len(surname) >= 3:
        yield surname


# A few hundred common first names (German-speaking countries, frequent immigrant names): a
# signature line or a field value starting with one is a name even when it is one word.
FIRST_NAMES = frozenset(
    _words(
        """Aaron Adam Adrian Agnes Albert Alexander Alexandra Alfred Ali Alina Alice Amelie Andrea
    Andreas Angelika Anja Anke Anna Anne Annette Anton Antonia Armin Arne Astrid Axel Barbara
    Bärbel Beate Ben Benedikt Benjamin Bernd Bernhard Bettina Bianca Birgit Björn Boris Brigitte
    Carina Carl Carla Carmen Carolin Caroline Carsten Charlotte Christa Christian Christiane
    Christina Christine Christoph Claudia Clara Conrad Cornelia Daniel Daniela David Dennis Detlef
    Diana Dieter Dietmar Dirk Dominik Doris Dorothea Edith Elena Elias Elisabeth Elke Ella Emil
    Emilia Emily Emma Erich Erik Erika Ernst Esther Eva Ewald Fabian Felix Finn Florian Frank Franz
    Franziska Frederik Friedrich Gabriele Georg Gerd Gerda Gerhard Gertrud Gisela Gregor Gudrun
    Günter Günther Hanna Hannah Hannelore Hans Harald Hartmut Heidi Heike Heinrich Heinz Helga
    Helmut Hendrik Henning Henry Herbert Hermann Hildegard Holger Horst Hubert Ida Ilse Ina Inge
    Ingeborg Ingo Ingrid Irene Iris Isabel Isabell Jakob Jan Jana Janina Jens Jessica Joachim
    Johann Johanna Johannes Jonas Jonathan Jörg Josef Julia Julian Juliane Jürgen Justus Jutta
    Kai Karin Karl Karla Karsten Katharina Kathrin Katja Katrin Kerstin Kevin Kim Klara Klaus
    Konrad Konstantin Kristina Lara Lars Laura Lea Lena Leon Leonie Lina Linda Lisa Lothar Louis
    Luca Lucas Lukas Luise Lutz Maik Manfred Manuel Manuela Marc Marcel Marco Marcus Margarete
    Maria Marie Marina Mario Marion Mark Markus Marlene Martha Martin Martina Mathias Matthias
    Max Maximilian Mehmet Melanie Mia Michael Michaela Mila Mirko Monika Moritz Nadine Natalie
    Nicole Niklas Nico Nils Nina Noah Norbert Olaf Oliver Oskar Otto Patricia Patrick Paul Paula
    Peter Petra Philipp Pia Rainer Ralf Ralph Regina Reinhard Renate Rene René Richard Robert
    Roland Rolf Rosemarie Rudolf Ruth Sabine Sabrina Sandra Sara Sarah Sascha Sebastian Silke
    Simon Simone Sofia Sonja Sophia Sophie Stefan Stefanie Steffen Stephan Stephanie Susanne
    Sven Svenja Swen Tanja Theo Theresa Thomas Thorsten Tim Tobias Tom Torsten Udo Ulla Ulrich
    Ulrike Ursula Uta Ute Uwe Valentin Vanessa Vera Veronika Viktor Viktoria Volker Walter Werner
    Wilhelm Willi Wolfgang Yvonne Zoe Ahmet Ayse Fatma Mustafa Emre Elif Olga Irina Natalia
    Tatjana Sergej Dmitri Piotr Katarzyna Agnieszka Giuseppe Marco Francesca Giovanni Ana
    Ivan Milan Jelena Dragan Hasan Hüseyin Murat Yusuf Zeynep Leyla Ole Jannik Malte Hauke Frauke
    Imke Wiebke Gesine Kirsten Dörte Heiko Jörn Gunnar Knut Birte Maren Meike Insa Tjark
    Achim Alois Anneliese Arnold Berthold Brunhilde Christel Dagmar Eberhard Edeltraud Egon
    Elfriede Erna Erwin Friedhelm Fritz Gabi Gernot Gottfried Gustav Hannes Hartwig Hedwig Helene
    Henrike Hilde Hubertus Irmgard Jochen Kurt Lieselotte Ludwig Nele Reiner Rüdiger Siegfried
    Sigrid Theodor Ulf Waltraud Wilfried Wolfram Aylin Corinna Greta Kornelia Lennart Lotte
    Magdalena Mathilde Merle Nadja Raphael Rebecca Svea Thea Timo Vivien Yannick Leni Jule Ronja
    Frieda Karoline Henrik Mats Piet Jasper Fiete Marek Marta Tomasz Pawel Ines Jost Volker"""
    )
)


# A known first name anywhere, with the surname after it ("… an Hubertus Lenzing ./. …",
# "die Tochter, Lina, …"). Short names and names that are also ordinary words stay out.
_AMBIGUOUS = frozenset(
    _words(
        "Mark Ernst Frank Otto Insa Milan Kai Max Jan Tom Ben Kim Tim Ole Ana Ina Ida Ella Lea Mia Ali Jost Gabi Uta Ute Eva"
    )
)
_STANDALONE = sorted((n for n in FIRST_NAMES if len(n) >= 4 and n not in _AMBIGUOUS), key=len, reverse=True)


def trie_pattern(words: Iterable[str], *, fold: bool = False) -> str:
    """A regex source matching exactly `words`, with shared prefixes factored out (a trie):
    one pass over the text however many words (office names, first names)."""
    trie: dict = {}
    for word in words:
        node = trie
        for char in word.casefold() if fold else word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _trie(trie)


def _trie(node: dict) -> str:
    branches = [re.escape(char) + _trie(child) for char, child in sorted(node.items()) if char]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body


_FIRST_NAME = re.compile(
    rf"(?<![\w.-])(?P<name>{trie_pattern(_STANDALONE)}(?:-{_WORD})?"
    rf"(?:[ \t]+(?:{_PARTICLE}[ \t]+)?{_TOKEN})?)(?![\w-])"
)
