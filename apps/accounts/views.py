from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from apps.accounts import services
from apps.accounts.contracts import LanguageSwitch, PreferencesUpdate
from apps.accounts.forms import PreferencesForm
from apps.accounts.models import User
from apps.core.errors import DomainError
from apps.core.inputs import build
from apps.core.surfaces import web
from apps.core.surfaces.web import domain_errors, form_errors


def settings_page(request):
    user = request.user
    if request.method == "POST":
        form = PreferencesForm(request.POST)
        if form.is_valid():
            try:
                services.update_preferences(request.principal, form.validated)
            except DomainError as exc:
                form_errors(form, exc)
            else:
                translation.activate(form.cleaned_data["language"])
                messages.success(request, _("Your settings have been saved."))
                response = HttpResponseRedirect(reverse("settings"))
                response.set_cookie("django_language", form.cleaned_data["language"], samesite="Lax")
                return response
    else:
        form = PreferencesForm(
            initial={
                "language": user.language,
                "time_zone": user.time_zone,
                "mute_toasts": user.mute_toasts,
                "morning_digest": user.morning_digest,
            }
        )
    return render(request, "accounts/settings.html", {"form": form})


@login_not_required
@require_POST
@domain_errors
def switch_language(request):
    """The header's language switch: stored in the profile when signed in, else in a cookie."""
    language = web.posted(request, LanguageSwitch).language
    user = request.user
    if user.is_authenticated and language in User.Language.values:
        services.update_preferences(
            request.principal, build(PreferencesUpdate, language=language, time_zone=user.time_zone)
        )
        response = HttpResponseRedirect(web.back_target(request, "/"))
        response.set_cookie("django_language", language, samesite="Lax")
        return response
    return set_language(request)
