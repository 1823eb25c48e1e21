"""Styled, localized 403/404/500 pages (issue 14, item 10) and the favicon. The pages render
without a database (the 500 page is what people see when it is down) and without the request's
context processors; under /api/ the same failures answer in the API's error shape."""

import pytest
from django.test import RequestFactory
from django.utils import translation

from apps.core.surfaces import views

HEADINGS = {
    404: {"de": "Seite nicht gefunden", "en": "Page not found", "it": "Pagina non trovata"},
    403: {"de": "Zugriff verweigert", "en": "Access denied", "it": "Accesso negato"},
    500: {"de": "Etwas ist schiefgelaufen", "en": "Something went wrong", "it": "Qualcosa è andato storto"},
}
HANDLERS = {
    404: lambda request: views.page_not_found(request, Exception("nope")),
    403: lambda request: views.permission_denied(request, Exception("nope")),
    500: views.server_error,
}


@pytest.mark.parametrize("language", ["de", "en", "it"])
@pytest.mark.parametrize("status", [404, 403, 500])
def test_error_pages_render_in_each_language_without_a_database(status, language):
    # No django_db mark: pytest-django refuses every query, so a page that needed the database
    # (the session, the user, the navigation) would fail here.
    request = RequestFactory().get("/mandanten/9999/")
    with translation.override(language):
        response = HANDLERS[status](request)
    html = response.content.decode()
    assert response.status_code == status
    assert f'<html lang="{language}">' in html
    assert f"<h1>{HEADINGS[status][language]}</h1>" in html
    assert 'href="/static/css/app.css"' in html and 'href="/static/favicon.svg"' in html
    assert 'href="/"' in html  # the way back
    assert "<script" not in html  # nothing that needs a nonce from the request


@pytest.mark.django_db
@pytest.mark.urls("tests.core.error_page_urls")
class TestThroughTheStack:
    @pytest.fixture(autouse=True)
    def no_debug(self, settings):
        settings.DEBUG = False

    @pytest.mark.parametrize(("language", "heading"), list(HEADINGS[404].items()))
    def test_unknown_page_is_the_styled_404_in_the_browsers_language(self, client, language, heading):
        response = client.get("/gibt-es-nicht/", HTTP_ACCEPT_LANGUAGE=language)
        html = response.content.decode()
        assert response.status_code == 404 and response["Content-Type"].startswith("text/html")
        assert f"<h1>{heading}</h1>" in html and "/gibt-es-nicht/" in html
        assert "Content-Security-Policy" in response

    def test_the_404_shows_the_path_escaped(self, client):
        html = client.get('/x/"><img src=x>/').content.decode()
        assert "<img src=x>" not in html and "&lt;img src=x&gt;" in html

    def test_a_crash_is_the_styled_500_without_the_traceback(self, client):
        client.raise_request_exception = False
        response = client.get("/kaputt/")
        html = response.content.decode()
        assert response.status_code == 500
        assert "<h1>Etwas ist schiefgelaufen</h1>" in html
        assert "hunter2" not in html and "RuntimeError" not in html

    def test_a_refusal_is_the_styled_403_in_the_signed_in_persons_language(self, client, django_user_model):
        user = django_user_model.objects.create_user(
            email="it@kanzlei.example", password="x-Passwort-1", language="it"
        )
        client.force_login(user)
        response = client.get("/verboten/")
        assert response.status_code == 403
        assert "<h1>Accesso negato</h1>" in response.content.decode()

    @pytest.mark.parametrize(("path", "status", "code"), [
        ("/api/v1/kaputt/", 500, "server_error"),
        ("/api/v1/verboten/", 403, "forbidden"),
        ("/api/v1/gibt-es-nicht", 404, "not_found"),
    ])  # fmt: skip
    def test_under_api_the_same_failures_keep_the_error_shape(self, client, path, status, code):
        client.raise_request_exception = False
        response = client.get(path)
        assert response.status_code == status
        body = response.json()
        assert body["code"] == code and set(body) == {"code", "message", "details"}
        assert "hunter2" not in response.content.decode()

    def test_an_expired_form_is_the_styled_csrf_page(self, settings):
        from django.test import Client

        strict = Client(enforce_csrf_checks=True)
        response = strict.post("/accounts/login/", {"username": "a@b.example", "password": "x"})
        assert response.status_code == 403
        assert "<h1>Das Formular ist abgelaufen</h1>" in response.content.decode()


@pytest.mark.django_db
def test_favicon_is_served_at_favicon_ico_and_linked_from_every_page(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon["Content-Type"] == "image/svg+xml"
    assert b"<svg" in icon.content
    assert "max-age=86400" in icon["Cache-Control"]
    login = client.get("/accounts/login/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in login
