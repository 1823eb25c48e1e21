"""The Kanzlei settings page (/einstellungen/kanzlei/): the office's settings and inviting a
colleague, for people whose role is admin; everyone else gets a 403 page that says why."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.accounts import services as accounts
from apps.accounts.forms import InviteForm
from apps.clients import office_settings
from apps.clients.forms import OfficeSettingsForm
from apps.core.errors import DomainError
from apps.core.surfaces import web
from apps.core.surfaces.web import form_errors


def _denied(request):
    return render(request, "clients/office_settings_denied.html", status=403)


def _settings_form(data=None) -> OfficeSettingsForm:
    return OfficeSettingsForm(
        data,
        initial=office_settings.current(),
        lands=office_settings.lands(),
        models=office_settings.model_choices(),
    )


def _page(request, form: OfficeSettingsForm, invite: InviteForm, *, status: int = 200, link: str = ""):
    context = {"form": form, "invite": invite, "invite_link": link}
    return render(request, "clients/office_settings.html", context, status=status)


def office_settings_page(request):
    if not request.user.is_admin:
        return _denied(request)
    form = _settings_form(web.submitted(request))
    if request.method == "POST" and form.is_valid():
        try:
            office_settings.save(request.principal, form.validated)
        except DomainError as exc:
            form_errors(form, exc)
        else:
            messages.success(request, _("The office settings have been saved."))
            return redirect("clients:office-settings")
    return _page(request, form, InviteForm())


@require_POST
def invite_colleague(request):
    if not request.user.is_admin:
        return _denied(request)
    invite = InviteForm(request.POST)
    if invite.is_valid():
        try:
            user, path = accounts.invite_colleague(request.principal, invite.validated)
        except DomainError as exc:
            form_errors(invite, exc)
        else:
            messages.success(
                request,
                _("%(name)s has an account now. Send them the link below to set their password.")
                % {"name": user.get_full_name()},
            )
            return _page(request, _settings_form(), InviteForm(), link=request.build_absolute_uri(path))
    return _page(request, _settings_form(), invite)
