"""Pages are closed by default (DESIGN §3a): an anonymous visitor of any view is sent to the login
page unless the view says `@login_not_required` (and then trusts nobody). Two kinds of views
authenticate the caller themselves and are left to it: REST views (DRF: API keys, device tokens,
the session; they answer 401/403 in the API's error shape, never a login page), and the admin
(its own login page)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.middleware import LoginRequiredMiddleware
from django.http import HttpRequest, HttpResponseBase
from rest_framework.views import APIView


def authenticates_itself(view_func: Callable[..., Any], namespaces: list[str] | tuple[str, ...] = ()) -> bool:
    """Whether the view answers an anonymous caller itself instead of the login redirect."""
    view_class = getattr(view_func, "cls", None)
    if isinstance(view_class, type) and issubclass(view_class, APIView):
        return True
    return bool(namespaces) and namespaces[0] == "admin"


def public(view_func: Callable[..., Any]) -> bool:
    """Marked `@login_not_required`: open to anyone."""
    return getattr(view_func, "login_required", True) is False


class PagesClosedMiddleware(LoginRequiredMiddleware):
    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: tuple[Any, ...],
        view_kwargs: dict[str, Any],
    ) -> HttpResponseBase | None:
        match = request.resolver_match
        if authenticates_itself(view_func, match.namespaces if match is not None else ()):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)
