"""Security headers (issue 15, defect 2): every page sends a strict Content-Security-Policy whose
nonce is the one on the page's inline scripts and styles; no page carries an inline event handler
(the policy would block it); the other headers are on every response, API and static included."""

import re
from html.parser import HTMLParser

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

PAGES = [
    "/",
    "/chat/",
    "/aufgaben/",
    "/aufgaben/liste/",
    "/kalender/",
    "/kalender/agenda/",
    "/dokumente/",
    "/mandanten/",
    "/notizen/",
    "/wiki/",
    "/wissen/",
    "/settings/",
    "/settings/developer/",
    "/admin/",
    "/admin/tasks/task/",
    "/admin/django_celery_beat/periodictask/add/",
    "/api/docs/",
]


class Scan(HTMLParser):
    def __init__(self):
        super().__init__()
        self.inline_scripts, self.styles, self.handlers = [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and "src" not in attrs and attrs.get("type") not in ("application/json",):
            self.inline_scripts.append(attrs.get("nonce"))
        if tag == "style":
            self.styles.append(attrs.get("nonce"))
        self.handlers += [(tag, name) for name in attrs if name.startswith("on") or name.startswith("hx-on")]


def directives(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


@pytest.fixture
def admin_web(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_a_strict_policy_matching_its_inline_scripts(admin_web, statuses, path):
    response = admin_web.get(path)
    assert response.status_code == 200, path
    policy = directives(response)
    assert policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"] and policy["form-action"] == ["'self'"]
    assert "'unsafe-inline'" not in policy["script-src"] and "'unsafe-eval'" not in policy["script-src"]
    assert "'unsafe-inline'" not in policy["style-src"]
    assert "ws://testserver" in policy["connect-src"] and "'self'" in policy["connect-src"]
    nonces = [
        v.removeprefix("'nonce-").removesuffix("'") for v in policy["script-src"] if v.startswith("'nonce-")
    ]
    scan = Scan()
    scan.feed(response.content.decode())
    assert scan.handlers == [], (path, scan.handlers)
    for nonce in scan.inline_scripts + scan.styles:
        assert nonce is not None and nonces == [nonce], (path, nonce, nonces)


def test_the_nonce_is_new_on_every_request(admin_web):
    first, second = directives(admin_web.get("/"))["script-src"], directives(admin_web.get("/"))["script-src"]
    assert first != second


@pytest.mark.parametrize("path", ["/", "/accounts/login/", "/api/v1/tasks/", "/healthz", "/api/schema/"])
def test_the_other_headers_are_on_every_response(path):
    response = Client().get(path)
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert re.search(r"camera=\(\)", response["Permissions-Policy"])
    assert response["X-Frame-Options"] == "DENY"
    assert "Content-Security-Policy" in response


def test_api_docs_load_their_init_script_from_this_server(admin_web):
    page = admin_web.get("/api/docs/")
    scripts = re.findall(r'<script src="([^"]+)"', page.content.decode())
    assert any("script" in src and src.startswith("/api/docs/") for src in scripts), scripts
    init = admin_web.get(next(s for s in scripts if s.startswith("/api/docs/")).replace("&amp;", "&"))
    assert init.status_code == 200 and "SwaggerUIBundle" in init.content.decode()
