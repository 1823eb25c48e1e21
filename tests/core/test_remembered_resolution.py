"""The web process's handler remembers which view a path resolves to (apps/core/surfaces/resolving.py)."""

from __future__ import annotations

import pytest
from django.test import RequestFactory, override_settings
from django.urls import Resolver404, get_resolver, path

from apps.core.surfaces import resolving
from apps.core.surfaces.bodies import BodyMeasuringASGIHandler


def _ok(request):  # pragma: no cover - only resolved, never called
    raise AssertionError


urlpatterns = [path("only/<int:pk>/", _ok, name="only")]


@pytest.fixture
def handler():
    return BodyMeasuringASGIHandler()


@pytest.fixture
def counted(monkeypatch):
    """Counts the resolver's real resolutions (the memo answers the rest)."""
    calls: list[str] = []

    def resolver_with_count():
        resolver = get_resolver()
        if "resolve" not in resolver.__dict__:
            real = resolver.resolve

            def resolve(path):
                calls.append(path)
                return real(path)

            monkeypatch.setattr(resolver, "resolve", resolve)
            monkeypatch.delitem(resolver.__dict__, "_clapilot_resolved", raising=False)
        return calls

    return resolver_with_count


def test_a_path_is_resolved_once_then_remembered(handler, counted):
    calls = counted()
    first = RequestFactory().get("/healthz")
    second = RequestFactory().get("/healthz")
    match = handler.resolve_request(first)
    assert handler.resolve_request(second) is match
    assert second.resolver_match is match and match.url_name == "healthz"
    assert calls == ["/healthz"]


def test_a_path_that_matches_nothing_is_never_remembered(handler, counted):
    calls = counted()
    for _ in range(2):
        with pytest.raises(Resolver404):
            handler.resolve_request(RequestFactory().get("/nirgends/zu/finden/"))
    assert calls == ["/nirgends/zu/finden/"] * 2


def test_another_url_configuration_starts_with_an_empty_memo(handler, counted):
    handler.resolve_request(RequestFactory().get("/healthz"))
    with override_settings(ROOT_URLCONF=__name__):
        calls = counted()
        assert handler.resolve_request(RequestFactory().get("/only/7/")).kwargs == {"pk": 7}
        with pytest.raises(Resolver404):
            handler.resolve_request(RequestFactory().get("/healthz"))
        assert calls == ["/only/7/", "/healthz"]


def test_the_memo_is_bounded(handler, counted, monkeypatch):
    monkeypatch.setattr(resolving, "MEMO_SIZE", 3)
    calls = counted()
    for path_ in ["/healthz", "/aufgaben/", "/notizen/", "/kalender/fristen/"]:
        handler.resolve_request(RequestFactory().get(path_))
    assert len(get_resolver().__dict__["_clapilot_resolved"]) <= 3
    assert len(calls) == 4
