import zoneinfo

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.accounts.contracts import ColleagueInvite, PreferencesUpdate
from apps.accounts.models import User
from apps.core.surfaces.forms import InputModelForm

# The zones an office picks from; the full IANA list stays accepted for API clients.
COMMON_TIME_ZONES = sorted(z for z in zoneinfo.available_timezones() if "/" in z and not z.startswith("Etc/"))


class PreferencesForm(InputModelForm):
    """A person's own settings: validated by `PreferencesUpdate`, which the language switch and
    every other caller of `services.update_preferences` build too."""

    input_model = PreferencesUpdate
    DERIVED_FIELDS = "__all__"
    validated: PreferencesUpdate

    language = forms.ChoiceField(label=_("Language"), choices=User.Language.choices)
    time_zone = forms.ChoiceField(label=_("Time zone"), choices=[(z, z) for z in COMMON_TIME_ZONES])
    mute_toasts = forms.BooleanField(
        label=_("Mute live notices"),
        required=False,
        help_text=_("No pop-up notices about colleagues' changes; open pages still update live."),
    )
    morning_digest = forms.BooleanField(
        label=_("Morning overview"),
        required=False,
        help_text=_(
            "A notification at 07:00 in your time zone with today's Fristen, Vorfristen and overdue tasks."
        ),
    )


class InviteForm(InputModelForm):
    """Invite a colleague (Kanzlei settings page): validated by `ColleagueInvite`."""

    input_model = ColleagueInvite

    full_name = forms.CharField(label=_("Name"), max_length=150)
    email = forms.CharField(label=_("E-mail address"), max_length=254)
    role = forms.ChoiceField(label=_("Role"), choices=User.Role.choices, initial=User.Role.STAFF)
