"""The Mandanten forms validate through the operations' input models: "Neuer Mandant" as a
`ClientPageCreate` of every field, the client page's editor as a `ClientEdit` of the changed
fields on top of the version it started from."""

import pytest
from django.http import QueryDict

from apps.clients.contracts import ClientEdit, ClientPageCreate
from apps.clients.forms import ClientEditForm, ClientForm

pytestmark = pytest.mark.django_db

NEW = {"name": "Bäckerei Huber", "kind": "company", "status": "active", "city": "Freising"}


def test_a_new_client_is_validated_as_client_page_create(ben):
    form = ClientForm({**NEW, "responsible": str(ben.pk), "neutralize_always": "on"}, people=[ben])
    assert form.is_valid(), form.errors
    data = form.validated
    assert isinstance(data, ClientPageCreate)
    assert (data.name, data.city, data.responsible_id, data.neutralize_always) == (
        "Bäckerei Huber",
        "Freising",
        ben.pk,
        True,
    )
    assert (data.client_number, data.tax_number, data.kind) == ("", "", "company")


def test_an_unticked_switch_and_no_responsible_are_values_not_gaps():
    form = ClientForm(NEW, people=[])
    assert form.is_valid(), form.errors
    assert form.validated.neutralize_always is False and form.validated.responsible_id is None


def test_an_edit_is_validated_as_the_changed_fields_and_the_version(make_client):
    client = make_client("Meier GmbH", city="Garching")
    shown = ClientEditForm.values_of(client)
    data = QueryDict(mutable=True)
    data.update({**shown, **{f"base_{k}": v for k, v in shown.items()}, "version": str(client.version)})
    data["city"] = "München"
    form = ClientEditForm(data, people=[], client=client)
    assert form.is_valid(), form.errors
    assert isinstance(form.validated, ClientEdit)
    assert form.validated.changes() == {"city": "München"}
    assert form.validated.expected_version == client.version


def test_a_version_that_is_no_version_is_refused_on_the_form(make_client):
    client = make_client("Meier GmbH")
    shown = ClientEditForm.values_of(client)
    data = QueryDict(mutable=True)
    data.update({**shown, **{f"base_{k}": v for k, v in shown.items()}, "version": "0"})
    form = ClientEditForm(data, people=[], client=client)
    assert not form.is_valid() and "version" in form.errors and not hasattr(form, "validated")
