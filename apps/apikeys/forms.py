from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.apikeys.contracts import ApiKeyCreate
from apps.apikeys.models import Scope
from apps.apikeys.services import MAX_EXPIRY_DAYS, MAX_NAME_LENGTH
from apps.core.surfaces.forms import InputModelForm


class ApiKeyCreateForm(InputModelForm):
    """The Developer page's form (the admin's add form reuses its fields); it validates through
    the operation's input model, and the service validates again."""

    input_model = ApiKeyCreate

    name = forms.CharField(
        label=_("Name"),
        max_length=MAX_NAME_LENGTH,
        help_text=_("What the key is for, e.g. “Coding agent on build server”."),
    )
    scopes = forms.MultipleChoiceField(
        label=_("Scopes"),
        choices=Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Grant only what the client needs. tools:execute runs any tool as you."),
        error_messages={"required": _("Choose at least one scope.")},
    )
    expires_in_days = forms.IntegerField(
        label=_("Expires after (days)"),
        required=False,
        min_value=1,
        max_value=MAX_EXPIRY_DAYS,
        help_text=_("Leave empty for a key that does not expire."),
    )
