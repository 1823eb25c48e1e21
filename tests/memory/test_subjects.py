"""The rule-based reading of whom a memory's text is about (`apps.memory.subjects`): companies by
their legal form, persons by salutation or a known first name, "Mandant(in) X", client numbers of
the office's scheme, Aktenzeichen; which mentions name the same subject; the claims left over."""

import pytest

from apps.memory import subjects

SCHEME = {"prefix": "", "start": 10001, "width": 5}


def read(text, scheme=SCHEME):
    return [
        (m.kind, m.words or m.surname or m.first or m.value, m.form or m.first, m.gender)
        for m in subjects.of(text, scheme=scheme).mentions
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mandant Schneider KG: Unterlagen kommen per Post.", [("org", ("schneider",), "kg", "")]),
        ("Die Müller GmbH zahlt bar.", [("org", ("müller",), "gmbh", "")]),
        (
            "Bäckerei Huber GmbH & Co. KG liefert quartalsweise.",
            [("org", ("bäckerei", "huber"), "gmbh&cokg", "")],
        ),
        ("Schulz Steuerberatung PartG mbB prüft.", [("org", ("schulz", "steuerberatung"), "partgmbb", "")]),
        ("Hans Müller e.K. zahlt bar.", [("org", ("hans", "müller"), "ek", "")]),
        ("Meier & Söhne OHG ruft an.", [("org", ("meier", "söhne"), "ohg", "")]),
        ("Die Lange GbR und die Krause UG (haftungsbeschränkt) teilen sich ein Büro.", None),
        ("Herr X möchte Termine nur vormittags.", [("person", "x", "", "m")]),
        ("Frau Y möchte Termine nur vormittags.", [("person", "y", "", "f")]),
        ("Frau Dr. Anna Schmidt ruft an.", [("person", "schmidt", "anna", "f")]),
        ("Herrn Müller Bescheid geben.", [("person", "müller", "", "m")]),
        ("Herr von Below möchte Briefe.", [("person", "below", "", "m")]),
        ("Anna Schmidt ruft nur nachmittags an.", [("person", "schmidt", "anna", "")]),
        ("Mandantin Weber möchte Einschreiben.", [("name", ("weber",), "", "f")]),
        ("Mandant 10003 zahlt per Lastschrift.", [("number", "10003", "", "")]),
        ("Mandanten-Nr. 10003: Lastschrift.", [("number", "10003", "", "")]),
        ("Az. 2 O 123/24: Frist zwei Wochen.", [("az", "2o123/24", "", "")]),
        ("Im Verfahren IX ZR 12/20 ruht die Sache.", [("az", "ixzr12/20", "", "")]),
        ("Akte 2027/0042: Rückruf.", [("az", "2027/0042", "", "")]),
        ("Die Kanzlei schließt freitags um 14 Uhr.", []),
        ("Unterlagen kommen immer per Post, nie per Mail.", []),
        ("Wir zahlen 15000 Euro bis 30.06.2027.", []),  # an amount is no client number
        ("Das Paket wiegt 5 KG.", []),  # a weight is no company
        ("Termin um 14 Uhr 30/45 Minuten.", []),  # no Aktenzeichen
    ],
)
def test_what_a_text_names(text, expected):
    found = read(text)
    if expected is None:
        assert [(kind, words, form) for kind, words, form, _ in found] == [
            ("org", ("lange",), "gbr"),
            ("org", ("krause",), "ug"),
        ]
    else:
        assert found == expected


def test_client_numbers_follow_the_offices_scheme():
    scheme = {"prefix": "M-", "start": 1, "width": 4}
    assert read("M-0042 zahlt per Lastschrift.", scheme) == [("number", "m-0042", "", "")]
    assert read("Mandant 10003 zahlt.", scheme) == []  # not of this office's form
    assert read("Der Mandant (10003) zahlt.") == [("number", "10003", "", "")]


def test_the_rest_keeps_what_the_text_claims_without_the_names():
    rest = subjects.of("Mandant 10003: Jahresabschluss bis 30.06.2027 fällig.", scheme=SCHEME).rest
    assert "10003" not in rest and "30.06.2027" in rest


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Mandant Schneider KG: Post.", "Mandant Müller GmbH: Post."),
        ("Schneider KG zahlt.", "Schneider GmbH zahlt."),  # another legal form, another company
        ("Herr X möchte Termine.", "Frau Y möchte Termine."),
        ("Herr Müller ruft an.", "Frau Müller ruft an."),
        ("Herr Dr. Hans Becker ruft an.", "Herr Dr. Peter Becker ruft an."),
        ("Mandant 10003 zahlt.", "Mandant 10004 zahlt."),
        ("Az. 2 O 123/24: Frist.", "Az. 3 O 456/24: Frist."),
        ("Die Kanzlei schließt um 14 Uhr.", "Die Meier GmbH schließt um 14 Uhr."),  # nobody vs somebody
        ("Mandant Meier (10003) zahlt.", "Mandant Meier zahlt."),  # a number more: in doubt, apart
    ],
)
def test_different_subjects(a, b):
    sa, sb = subjects.of(a, scheme=SCHEME), subjects.of(b, scheme=SCHEME)
    assert not subjects.same(sa, sb) and not subjects.same(sb, sa)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Mandant Schneider KG: Post.", "Unterlagen der Schneider KG per Post."),
        ("Autohaus Schneider KG zahlt.", "Die Schneider KG zahlt."),
        ("Frau Dr. Anna Schmidt ruft an.", "Frau Schmidt ruft an."),
        ("Herr X möchte Termine.", "Termine möchte Herr X."),
        ("Mandantin Weber möchte Post.", "Frau Weber möchte Post."),
        ("Mandant Meier zahlt.", "Die Meier GmbH zahlt."),
        ("Mandant 10003 zahlt.", "Mandanten-Nr. 10003 zahlt."),
        ("Die Kanzlei schließt um 14 Uhr.", "Freitags schließt die Kanzlei."),
    ],
)
def test_same_subject(a, b):
    sa, sb = subjects.of(a, scheme=SCHEME), subjects.of(b, scheme=SCHEME)
    assert subjects.same(sa, sb) and subjects.same(sb, sa)
    assert set(sa.anchors) & set(sb.anchors) or not (sa.anchors or sb.anchors)


def test_naming_the_linked_client_adds_no_subject():
    from types import SimpleNamespace

    meier = SimpleNamespace(pk=3, name="Meier GmbH", client_number="10003")
    for text in ("Meier GmbH zahlt per Lastschrift.", "Mandant 10003 zahlt.", "Mandant Meier zahlt."):
        assert subjects.of(text, client=meier, scheme=SCHEME).mentions == ()
    other = subjects.of("Die Schulz KG zahlt für Meier GmbH.", client=meier, scheme=SCHEME)
    assert [m.words for m in other.mentions] == [("schulz",)]


def test_naming_the_linked_person_or_case_adds_no_subject():
    from types import SimpleNamespace

    anna = SimpleNamespace(pk=7, full_name="Anna Berger")
    assert (
        subjects.of("Frau Berger möchte Termine nur vormittags.", person=anna, scheme=SCHEME).mentions == ()
    )
    assert subjects.of(
        "Herr Berger möchte Termine.", person=SimpleNamespace(full_name=""), scheme=SCHEME
    ).mentions
    meier = SimpleNamespace(pk=3, name="Meier GmbH", client_number="10003")
    case = SimpleNamespace(pk=5, reference="2027/0042", client=meier)
    assert subjects.of("Akte 2027/0042 der Meier GmbH: Rückruf.", case=case, scheme=SCHEME).mentions == ()
    assert [m.value for m in subjects.of("Akte 2027/0043: Rückruf.", case=case, scheme=SCHEME).mentions] == [
        "2027/0043"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Meier GmbH möchte Unterlagen zur Lohnabrechnung per Post erhalten (Vorgang 17).",
        "Ansprechpartner bei Schulz KG für die Reisekosten ist Frau Berger, Durchwahl 23.",
        "Frau Weber bevorzugt bei der Betriebsprüfung kurze Antworten (Notiz 5).",
        "Dr. Hartmann: Gespräch zur Kündigung am 3.4. mit Herr Vogel, Nummer 9.",
    ],
)
def test_a_text_is_about_the_same_subject_as_itself(text):
    read = subjects.of(text, scheme=SCHEME)
    assert subjects.same(read, subjects.of(text, scheme=SCHEME))
    assert read.mentions  # and it names somebody
