"""The settings page and every other caller of `update_preferences` go through one input model,
`PreferencesUpdate`: a bad value is the field's error, nothing is saved."""

import pytest

from apps.accounts import services
from apps.accounts.contracts import PreferencesUpdate
from apps.accounts.forms import PreferencesForm
from apps.accounts.principal import Principal
from apps.core.errors import InvalidInput
from apps.core.inputs import build

pytestmark = pytest.mark.django_db


def test_the_settings_form_is_validated_as_preferences_update():
    form = PreferencesForm({"language": "it", "time_zone": "Europe/Rome", "morning_digest": "on"})
    assert form.is_valid(), form.errors
    assert isinstance(form.validated, PreferencesUpdate)
    assert (str(form.validated.language), form.validated.time_zone) == ("it", "Europe/Rome")
    assert (form.validated.mute_toasts, form.validated.morning_digest) == (False, True)


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"language": "fr", "time_zone": "Europe/Berlin"}, "language"),
        ({"language": "de", "time_zone": "Mars/Olympus"}, "time_zone"),
        ({"language": "de", "time_zone": "Europe/Berlin", "mute_toasts": 1}, "mute_toasts"),
    ],
)
def test_a_bad_value_is_the_fields_error_and_saves_nothing(user, values, field):
    user.language, user.time_zone = "it", "Europe/Rome"
    user.save()
    with pytest.raises(InvalidInput) as error:
        services.update_preferences(Principal.for_user(user), build(PreferencesUpdate, **values))
    assert list(error.value.field_errors) == [field]
    user.refresh_from_db()
    assert (user.language, user.time_zone, user.mute_toasts) == ("it", "Europe/Rome", False)


def test_the_service_saves_the_validated_preferences(user):
    data = build(PreferencesUpdate, language="it", time_zone="Europe/Rome", mute_toasts=True)
    services.update_preferences(Principal.for_user(user), data)
    user.refresh_from_db()
    assert (user.language, user.time_zone, user.mute_toasts) == ("it", "Europe/Rome", True)
