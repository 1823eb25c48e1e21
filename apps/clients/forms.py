"""Forms of the Mandanten pages. They parse input; `apps.clients.services` validates and writes."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.clients.models import NAME_MAX, NOTES_MAX, Client

# Fields of the editor, with the service field each maps to.
EDITOR_FIELDS = {
    "name": "name",
    "client_number": "client_number",
    "kind": "kind",
    "status": "status",
    "tax_number": "tax_number",
    "email": "email",
    "phone": "phone",
    "street": "street",
    "postal_code": "postal_code",
    "city": "city",
    "country": "country",
    "responsible": "responsible_id",
    "notes": "notes",
}


class ClientForm(forms.Form):
    """Create and edit. When editing, each field has a hidden `base_<field>`: the value the user
    started from. Only fields whose value differs from their base are saved, so a save never
    reverts a change someone else made meanwhile to a field this user did not touch."""

    name = forms.CharField(label=_("Name"), max_length=NAME_MAX)
    client_number = forms.CharField(label=_("Client number"), max_length=40)
    kind = forms.ChoiceField(label=_("Kind"), choices=Client.Kind.choices)
    status = forms.ChoiceField(label=_("Status"), choices=Client.Status.choices)
    tax_number = forms.CharField(label=_("Tax number"), max_length=40, required=False)
    email = forms.CharField(label=_("E-mail"), max_length=254, required=False)
    phone = forms.CharField(label=_("Phone"), max_length=60, required=False)
    street = forms.CharField(label=_("Street"), max_length=200, required=False)
    postal_code = forms.CharField(label=_("Postal code"), max_length=20, required=False)
    city = forms.CharField(label=_("City"), max_length=120, required=False)
    country = forms.CharField(label=_("Country"), max_length=80, required=False)
    responsible = forms.ChoiceField(label=_("Responsible"), required=False)
    notes = forms.CharField(
        label=_("Notes"), max_length=NOTES_MAX, required=False, widget=forms.Textarea(attrs={"rows": 5})
    )

    def __init__(self, data=None, *, people, client: Client | None = None):
        self.client = client
        self.people = people
        super().__init__(data, initial=self.values_of(client) if client else {"country": "Deutschland"})
        self.fields["responsible"].choices = [("", _("Nobody"))] + [
            (str(p.pk), p.get_full_name()) for p in people
        ]
        if client is not None:
            for name in EDITOR_FIELDS:
                self.fields[f"base_{name}"] = forms.CharField(required=False, widget=forms.HiddenInput)
                self.initial[f"base_{name}"] = self.initial[name]
            # The version the editor started from: a save on top of someone else's newer change is
            # refused (`version_conflict`) instead of silently mixing the two.
            self.fields["version"] = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
            self.initial["version"] = client.version

    @staticmethod
    def values_of(client: Client) -> dict[str, str]:
        values = {name: getattr(client, name) for name in EDITOR_FIELDS if name != "responsible"}
        values["responsible"] = str(client.responsible_id or "")
        return values

    def all_values(self) -> dict:
        values = {service: self.cleaned_data.get(name) or "" for name, service in EDITOR_FIELDS.items()}
        values["responsible_id"] = values["responsible_id"] or None
        return values

    def changed_against_baseline(self) -> dict:
        changes = {}
        for name, service_field in EDITOR_FIELDS.items():
            submitted = self.data.get(name, "")
            base = self.data.get(f"base_{name}", submitted)
            if submitted.replace("\r\n", "\n") == base.replace("\r\n", "\n"):
                continue
            value = self.cleaned_data.get(name)
            changes[service_field] = (value or None) if name == "responsible" else (value or "")
        return changes
