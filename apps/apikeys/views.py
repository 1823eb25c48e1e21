"""Settings pages: Developer (admins manage instance API keys) and Devices (every member manages
their own device tokens). A newly created key is rendered in the POST response itself, never put
into the session or a message cookie, so it exists in exactly one HTTP response."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from apps.apikeys import services
from apps.apikeys.forms import ApiKeyCreateForm
from apps.apikeys.models import ApiKey, DeviceToken
from apps.core.errors import DomainError
from apps.core.surfaces.web import form_errors, reported


def _forbidden(request: HttpRequest) -> HttpResponse:
    return render(request, "apikeys/forbidden.html", status=403)


def _developer_context(
    request: HttpRequest, form: ApiKeyCreateForm | None, created: ApiKey | None = None, plaintext: str = ""
) -> dict:
    keys = services.visible_api_keys(request.principal)
    return {"form": form, "keys": keys, "created_key": created, "plaintext": plaintext}


def _may_open(request: HttpRequest) -> bool:
    """Admins manage every key; anyone else only sees (and revokes) keys they created, e.g. as an
    administrator they no longer are."""
    return request.user.is_admin or ApiKey.objects.filter(created_by=request.user).exists()


@never_cache
@require_http_methods(["GET", "POST"])
def developer(request: HttpRequest) -> HttpResponse:
    if not _may_open(request):
        return _forbidden(request)
    if not request.user.is_admin:  # their own keys, no form: only administrators create keys
        if request.method == "POST":
            return _forbidden(request)
        return render(request, "apikeys/developer.html", _developer_context(request, None))
    if request.method == "POST":
        form = ApiKeyCreateForm(request.POST)
        if form.is_valid():
            try:
                key, plaintext = services.create_api_key(request.principal, **form.validated.model_dump())
            except DomainError as exc:
                form_errors(form, exc)
            else:
                context = _developer_context(request, ApiKeyCreateForm(), key, plaintext)
                return render(request, "apikeys/developer.html", context)
        return render(request, "apikeys/developer.html", _developer_context(request, form), status=400)
    return render(request, "apikeys/developer.html", _developer_context(request, ApiKeyCreateForm()))


@require_POST
def revoke_key(request: HttpRequest, key_id: int) -> HttpResponse:
    if not _may_open(request):
        return _forbidden(request)
    with reported(request) as outcome:
        key = services.revoke_api_key(request.principal, key_id=key_id)
    if not outcome.failed:
        messages.success(request, _("The API key %(prefix)s has been revoked.") % {"prefix": key.prefix})
    return HttpResponseRedirect(reverse("apikeys:developer"))


@never_cache
def devices(request: HttpRequest) -> HttpResponse:
    tokens = DeviceToken.objects.filter(user=request.user, revoked_at__isnull=True).order_by("-created_at")
    return render(request, "apikeys/devices.html", {"tokens": tokens})


@require_POST
def revoke_device(request: HttpRequest, token_id: int) -> HttpResponse:
    with reported(request) as outcome:
        token = services.revoke_device_token(request.user, token_id)
    if not outcome.failed:
        messages.success(
            request, _("The device “%(name)s” has been signed out.") % {"name": token.device_name}
        )
    return HttpResponseRedirect(reverse("apikeys:devices"))
