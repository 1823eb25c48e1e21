"""The sanitizer every page write goes through: formatting survives, attacks never do."""

import pytest

from apps.notes import html as rich

ATTACKS = [
    "<script>alert(1)</script><p>ok</p>",
    '<img src="x" onerror="alert(1)">',
    '<a href="javascript:alert(1)">klick</a>',
    '<a href="JaVaScRiPt:alert(1)">klick</a>',
    '<p onclick="alert(1)" onmouseover="alert(2)">text</p>',
    '<svg onload="alert(1)"><circle/></svg>',
    '<iframe src="https://evil.example"></iframe>',
    '<span style="background-image: url(javascript:alert(1))">x</span>',
    '<div style="width: expression(alert(1))">x</div>',
    "<style>body{display:none}</style>",
    '<object data="x"></object><embed src="x">',
    '<form action="/x"><input name="a"></form>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_attacks_are_stripped(attack):
    clean = rich.sanitize(attack).lower()
    for needle in ("<script", "onerror", "onclick", "onload", "onmouseover", "javascript:", "<iframe",
                   "expression", "url(", "<style", "<object", "<embed", "<form", "<input", "data:"):  # fmt: skip
        assert needle not in clean, (attack, clean)


def test_formatting_and_font_styles_survive():
    source = (
        "<h2>Titel</h2><p><b>fett</b> <i>kursiv</i> <u>unter</u></p><ul><li>eins</li></ul>"
        '<p><span style="font-size: 18px; font-family: Georgia; color: #b42318; position: fixed">x</span>'
        '<font size="5" face="Arial">groß</font> <a href="https://example.org">Link</a></p>'
    )
    clean = rich.sanitize(source)
    for kept in ("<h2>", "<b>", "<i>", "<u>", "<ul>", 'size="5"', "font-size:18px", "font-family:Georgia",
                 "color:#b42318", 'href="https://example.org"', 'rel="noopener noreferrer"'):  # fmt: skip
        assert kept.replace(" ", "") in clean.replace(" ", ""), (kept, clean)
    assert "position" not in clean


def test_plain_text_keeps_words_and_line_breaks():
    assert (
        rich.plain_text(rich.sanitize("<h1>Kopf</h1><p>Hal<b>lo</b> &amp; Welt</p>")) == "Kopf\nHallo & Welt"
    )


def test_text_becomes_escaped_paragraphs():
    assert rich.from_text("a <b>\nb\n\nc") == "<p>a &lt;b&gt;<br>b</p><p>c</p>"
