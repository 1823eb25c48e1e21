"""Pages are closed by default (DESIGN §3a): `apps.core.surfaces.closed.PagesClosedMiddleware` (Django's
`LoginRequiredMiddleware`) sends an anonymous visitor of any view to the login page unless the view
says `@login_not_required`, or authenticates the caller itself (DRF views with API keys, device
tokens or the session; the admin with its own login). A public view is a conscious choice: it is
listed in PUBLIC below, or this test fails."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponse
from django.shortcuts import resolve_url
from django.test import override_settings
from django.urls import URLPattern, URLResolver, get_resolver, path
from rest_framework.permissions import AllowAny

from apps.core.surfaces.closed import authenticates_itself, public

pytestmark = pytest.mark.django_db

# Every view an anonymous visitor may reach (URL name → why).
PUBLIC = {
    "login": "signing in",
    "password_reset": "a forgotten password",
    "password_reset_done": "a forgotten password",
    "password_reset_confirm": "a forgotten password (the mailed link carries the token)",
    "password_reset_complete": "a forgotten password",
    "set_language": "the language of the signed-out pages",
    "switch-language": "the header's language switch, signed out too (a cookie)",
    "javascript-catalog": "the translations the signed-out pages' scripts use",
    "favicon": "the browser asks before anyone signs in",
    "healthz": "the load balancer's and monitoring's probe (states only, no secrets)",
    "documents:public-share": "a document shared by link (the token is the key)",
    "documents:public-share-file": "a document shared by link (the token is the key)",
    "calendar:feed": "the .ics feed a calendar app polls (the token is the key)",
    "apikeys:api-auth-token": "mobile sign-in: trades a password for a device token",
    "api-schema": "the OpenAPI document",
    "api-docs": "the API's browsable docs",
}

ARGUMENT = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")
SAMPLE = {"int": "1", "str": "x", "slug": "x", "path": "x", "uuid": str(uuid.UUID(int=1))}


@dataclass
class Route:
    route: str
    name: str
    namespaces: list[str]
    callback: object

    @property
    def url(self) -> str:
        return "/" + ARGUMENT.sub(lambda m: SAMPLE.get(m["converter"] or "str", "1"), self.route)

    @property
    def concrete(self) -> bool:
        return "(?P" not in self.route and "\\" not in self.route

    @property
    def drf_open(self) -> bool:
        """A REST view that lets anyone in (it checks a token or a password itself)."""
        view_class = getattr(self.callback, "cls", None)
        return view_class is not None and any(isinstance(p, AllowAny) for p in view_class().get_permissions())


def routes() -> list[Route]:
    found: list[Route] = []

    def walk(patterns, prefix: str, namespaces: list[str]) -> None:
        for entry in patterns:
            route = prefix + str(entry.pattern).lstrip("^").rstrip("$")
            if isinstance(entry, URLResolver):
                walk(
                    entry.url_patterns,
                    route,
                    [*namespaces, entry.namespace] if entry.namespace else namespaces,
                )
            elif isinstance(entry, URLPattern):
                name = ":".join([*namespaces, entry.name]) if entry.name else route
                found.append(Route(route, name, namespaces, entry.callback))

    walk(get_resolver().url_patterns, "", [])
    return found


def is_login_redirect(response, url: str) -> bool:
    login = resolve_url(settings.LOGIN_URL)
    location = urlsplit(response.get("Location", ""))
    return response.status_code == 302 and location.path == login and f"next={url}" in location.query


def test_every_public_view_is_listed_and_every_listed_view_is_public():
    opened = {
        r.name for r in routes() if public(r.callback) and not authenticates_itself(r.callback, r.namespaces)
    }
    opened |= {r.name for r in routes() if r.drf_open}
    assert opened - set(PUBLIC) == set(), "a new public view: list it in PUBLIC, with the reason"
    assert set(PUBLIC) - opened == set(), "listed as public but closed (or gone): remove it from PUBLIC"


def test_an_anonymous_visitor_is_sent_to_the_login_page_by_every_closed_view(client):
    checked = 0
    for r in routes():
        if not r.concrete or r.name in PUBLIC or r.namespaces[:1] == ["admin"]:
            continue
        response = client.get(r.url)
        if authenticates_itself(r.callback, r.namespaces):  # REST: the API's refusal, no login page
            assert response.status_code in (401, 403), (r.name, response.status_code)
        else:
            assert is_login_redirect(response, r.url), (r.name, r.url, response.status_code)
        checked += 1
    assert checked > 150


def test_the_admin_sends_an_anonymous_visitor_to_its_own_login(client):
    response = client.get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert client.get("/admin/login/").status_code == 200


def test_the_public_views_answer_an_anonymous_visitor(client):
    assert client.get("/accounts/login/").status_code == 200
    assert client.get("/jsi18n/").status_code == 200
    assert client.get("/favicon.ico").status_code == 200
    assert client.get("/healthz").status_code in (200, 503)
    assert client.post("/language/", {"language": "it"}).status_code == 302
    assert client.post("/i18n/setlang/", {"language": "en"}).status_code == 302
    assert client.get("/s/nope/").status_code == 404  # a share link: the token decides


def page(request):
    return HttpResponse("secret")


@login_not_required
def open_page(request):
    return HttpResponse("open")


urlpatterns = [path("", page), path("open/", open_page), path("accounts/login/", open_page, name="login")]


@override_settings(ROOT_URLCONF=__name__)
def test_a_page_without_login_not_required_redirects_an_anonymous_visitor_to_the_login(client, anna):
    response = client.get("/?tab=x")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?next=/%3Ftab%3Dx"
    assert client.get("/open/").content == b"open"
    client.force_login(anna)
    assert client.get("/").content == b"secret"


def test_no_view_repeats_login_required():
    """The middleware closes every page; `@login_required` on a view is noise that hides which
    views are public (those say `@login_not_required`)."""
    from pathlib import Path

    root = Path(settings.BASE_DIR)
    found = [
        f"{path.relative_to(root)}:{n}"
        for base in ("apps", "clapilot")
        for path in (root / base).rglob("*.py")
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if line.strip() == "@login_required"
    ]
    assert found == []
