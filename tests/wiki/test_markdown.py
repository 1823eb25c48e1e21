"""Wiki Markdown: tables, fenced code, [[links]] resolved in one query, relative links to pages,
the editor's preview endpoint — and no way to smuggle a script, handler or script link through."""

import re

import pytest
from django.urls import reverse

from apps.wiki.markdown import to_html
from tests.wiki.factories import WikiPageFactory

pytestmark = pytest.mark.django_db

TABLE = "| Frist | Tage |\n|:--|--:|\n| Einspruch | 30 |"
ATTACKS = [
    '<script>alert("x")</script>',
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">a</a>',
    "[klick](javascript:alert(1))",
    "[klick](JaVaScRiPt:alert(1))",
    "[klick](&#106;avascript:alert(1))",
    "[klick](vbscript:msgbox(1))",
    "[klick](data:text/html;base64,PHNjcmlwdD4=)",
    "![bild](javascript:alert(1))",
    '[klick](https://ok.example "x\\" onmouseover=\\"alert(1))',
    "[[<script>alert(1)</script>]]",
    "[[Seite|<img src=x onerror=alert(1)>]]",
    "```\n</code><script>alert(1)</script>\n```",
    '<iframe src="//evil.example"></iframe>',
    "<svg onload=alert(1)>",
    '<div style="background:url(javascript:alert(1))">x</div>',
]


def test_tables_code_and_headings():
    html = to_html(f"# Ablauf\n\n{TABLE}\n\n```python\nif frist < heute:\n    mahnen()\n```\n\n~~alt~~")
    assert "<h2>Ablauf</h2>" in html  # the page title is the h1
    assert "<table>" in html and '<th style="text-align:left">Frist</th>' in html
    assert '<td style="text-align:right">30</td>' in html
    assert '<pre><code class="language-python">if frist &lt; heute:\n    mahnen()\n</code></pre>' in html
    assert "<s>alt</s>" in html


def test_wiki_links_by_title_or_address_and_missing_pages(anna, django_assert_num_queries):
    WikiPageFactory(slug="fristenkontrolle", title="Fristenkontrolle", author=anna)
    WikiPageFactory(slug="post", title="Posteingang am Morgen", author=anna)
    source = "[[fristenkontrolle]], [[posteingang am morgen|die Post]], [[Urlaub im Büro]] und [[Post]]"
    with django_assert_num_queries(1):
        html = to_html(source)
    assert '<a href="/wiki/fristenkontrolle/" class="wikilink"' in html
    assert '<a href="/wiki/post/" class="wikilink" rel="noopener noreferrer">die Post</a>' in html
    assert '<a href="/wiki/post/" class="wikilink" rel="noopener noreferrer">Post</a>' in html
    assert (
        '<a href="/wiki/neu/?title=Urlaub+im+B%C3%BCro" class="wikilink-missing" '
        'rel="noopener noreferrer">Urlaub im Büro</a>'
    ) in html
    with django_assert_num_queries(0):
        to_html("No links here, only [a normal one](https://example.org).")


def test_relative_links_name_wiki_pages():
    html = to_html(
        "[a](fristen) [b](./post#morgens) [c](../urlaub/) [d](/aufgaben/) [e](https://x.de) [f](#oben)"
    )
    assert 'href="/wiki/fristen/"' in html and 'href="/wiki/post/#morgens"' in html
    assert 'href="/wiki/urlaub/"' in html and 'href="/aufgaben/"' in html
    assert 'href="https://x.de"' in html and 'href="#oben"' in html


@pytest.mark.parametrize("attack", ATTACKS)
def test_attacks_are_stripped(attack):
    html = to_html(f"Text\n\n{attack}\n\nmehr")
    tags = re.findall(r"<[a-zA-Z][^>]*>", html)
    assert not [t for t in tags if t.lower().startswith(("<script", "<iframe", "<svg", "<div"))], html
    assert not [t for t in tags if re.search(r"\son\w+\s*=", t)], html
    assert not [t for t in tags if re.search(r"(javascript|vbscript|data):", t, re.IGNORECASE)], html
    assert "mehr" in html  # the rest of the page survives


def test_page_shows_links_and_table(web, anna):
    WikiPageFactory(slug="fristen", title="Fristen", author=anna)
    WikiPageFactory(slug="ablauf", title="Ablauf", body=f"Siehe [[Fristen]].\n\n{TABLE}", author=anna)
    body = web.get(reverse("wiki:page", args=["ablauf"])).content.decode()
    assert 'href="/wiki/fristen/" class="wikilink"' in body and "<table>" in body


def test_preview_renders_like_the_page(web, anna):
    url = reverse("wiki:preview")
    response = web.post(url, {"body": f"{TABLE}\n\n[[Neue Seite]] <script>alert(1)</script>"})
    html = response.content.decode()
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    assert "<table>" in html and "wikilink-missing" in html and "<script" not in html
    assert web.post(url, {}).content.decode() == ""
    assert web.get(url).status_code == 405
    too_long = web.post(url, {"body": "x" * 200_001})
    assert too_long.status_code == 400


def test_preview_needs_a_login(client):
    response = client.post(reverse("wiki:preview"), {"body": "x"})
    assert response.status_code == 302 and "/login" in response.url


def test_missing_page_link_opens_the_form_with_its_title(web):
    body = web.get(reverse("wiki:create"), {"title": "Urlaub im Büro"}).content.decode()
    assert 'value="Urlaub im Büro"' in body


def test_editor_has_the_preview_and_no_english_hidden_label(web, anna):
    WikiPageFactory(slug="ablauf", title="Ablauf", body="x", author=anna)
    body = web.get(reverse("wiki:edit", args=["ablauf"])).content.decode()
    assert 'id="wiki-preview"' in body and reverse("wiki:preview") in body
    assert "Base revision" not in body and "Vorschau" in body
    assert "onclick" not in body
