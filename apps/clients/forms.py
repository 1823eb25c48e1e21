"""Forms of the Mandanten pages. They validate through the operations' input models
(`InputModelForm`); `apps.clients.services` checks what only it can (a taken number, a stale
version) and writes."""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.clients import numbering
from apps.clients.contracts import REFERENCE_MAX, CaseCreate, ClientEdit, ClientPageCreate
from apps.clients.models import NAME_MAX, NOTES_MAX, SUBJECT_MAX, Client
from apps.clients.office_settings import OfficeSettings
from apps.core.surfaces.forms import BaselineEditor, InputModelForm

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
    "neutralize_always": "neutralize_always",
}


class ClientForm(BaselineEditor, InputModelForm):
    """ "Neuer Mandant": every field, validated as a `ClientPageCreate` (the tool's and the API's
    `ClientCreate` with the "always neutralize" switch). Fields declared here carry the page's
    labels and choices; a field added to the contract is derived from it (`DERIVED_FIELDS`)."""

    input_model: ClassVar[type[ClientPageCreate] | type[ClientEdit]] = ClientPageCreate
    MODEL_FIELDS = {"responsible": "responsible_id", "version": "expected_version"}
    DERIVED_FIELDS = "__all__"

    name = forms.CharField(label=_("Name"), max_length=NAME_MAX)
    client_number = forms.CharField(
        label=_("Client number"),
        max_length=40,
        required=False,
        help_text=_("Leave it empty: the client gets the next free number of the office's scheme."),
    )
    kind = forms.ChoiceField(label=_("Kind"), choices=Client.Kind.choices)
    status = forms.ChoiceField(label=_("Status"), choices=Client.Status.choices)
    tax_number = forms.CharField(label=_("Tax number"), max_length=40, required=False)
    email = forms.CharField(label=_("E-mail"), max_length=254, required=False)
    phone = forms.CharField(label=_("Phone"), max_length=60, required=False)
    street = forms.CharField(label=_("Street"), max_length=200, required=False)
    postal_code = forms.CharField(label=_("Postal code"), max_length=20, required=False)
    city = forms.CharField(label=_("City"), max_length=120, required=False)
    country = forms.CharField(label=_("Country"), max_length=80, required=False)
    responsible = forms.TypedChoiceField(label=_("Responsible"), coerce=int, required=False, empty_value=None)
    notes = forms.CharField(
        label=_("Notes"), max_length=NOTES_MAX, required=False, widget=forms.Textarea(attrs={"rows": 5})
    )
    neutralize_always = forms.BooleanField(
        label=_("Always neutralize"),
        required=False,
        help_text=_(
            "Names and numbers are replaced before this client's data (cases and documents "
            "included) reaches a model provider, even when the office switched neutralization off."
        ),
    )

    def __init__(self, data=None, *, people, client: Client | None = None):
        self.client = client
        self.people = people
        super().__init__(data, initial=self.values_of(client) if client else {"country": "Deutschland"})
        self.fields["responsible"].choices = [("", _("Nobody"))] + [
            (str(p.pk), p.get_full_name()) for p in people
        ]
        if client is None:
            self.fields["client_number"].widget.attrs["placeholder"] = numbering.next_free_number(
                reserve=False
            )
        else:
            # An existing client keeps a number: it is how the office files everything about them.
            self.fields["client_number"].required = True
            self.fields["client_number"].help_text = ""
            self.add_baselines()
            # The version the editor started from: a save on top of someone else's newer change is
            # refused (`version_conflict`) instead of silently mixing the two.
            self.fields["version"] = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
            self.initial["version"] = client.version

    @classmethod
    def values_of(cls, client: Client) -> dict[str, str]:
        """The client's current values as the editor shows them (none as "", a yes as "on")."""
        return {name: cls.shown(getattr(client, field)) for name, field in cls.EDITOR_FIELDS.items()}

    def model_values(self) -> dict[str, Any]:
        """What `ClientPageCreate` validates: every field (an empty text as "", an empty choice
        of a person as None)."""
        values = {}
        for name, service in self.EDITOR_FIELDS.items():
            value = self.cleaned_data.get(name)
            values[service] = self.empty_value(name) if value in ("", None) else value
        return values


class ClientEditForm(ClientForm):
    """The client page's editor: only the fields the person changed are saved (see
    `BaselineEditor`), as a `ClientEdit` on top of the version the editor started from."""

    input_model = ClientEdit

    def model_values(self) -> dict[str, Any]:
        return {**self.changed_against_baseline(), "expected_version": self.cleaned_data.get("version")}


# Every field the editor saves: those above and those derived from the contract.
ClientForm.EDITOR_FIELDS = {**EDITOR_FIELDS, **{name: name for name in ClientForm.derived_names()}}


class CaseForm(InputModelForm):
    """ "Neue Akte": validated through the operation's input model (`CaseCreate`), like the tool
    and the REST API. Without an Aktenzeichen the case gets the next free one of the scheme."""

    input_model = CaseCreate
    MODEL_FIELDS = {"client": "client_id", "responsible": "responsible_id"}
    NOT_DERIVED = frozenset({"status"})
    DERIVED_FIELDS = "__all__"

    client = forms.TypedChoiceField(label=_("Client"), coerce=int)
    subject = forms.CharField(label=_("Subject"), max_length=SUBJECT_MAX)
    reference = forms.CharField(
        label=_("Reference"),
        max_length=REFERENCE_MAX,
        required=False,
        help_text=_("Leave it empty: the case gets the next free reference of the office's scheme."),
    )
    responsible = forms.TypedChoiceField(label=_("Responsible"), coerce=int, required=False, empty_value=None)

    def __init__(self, data=None, *, clients, people, initial=None):
        super().__init__(data, initial=initial)
        self.fields["client"].choices = [("", "—")] + [(str(pk), label) for pk, label in clients]
        self.fields["responsible"].choices = [("", _("Nobody"))] + [
            (str(p.pk), p.get_full_name()) for p in people
        ]
        self.fields["reference"].widget.attrs["placeholder"] = numbering.next_free_reference(reserve=False)


class OfficeSettingsForm(InputModelForm):
    """The Kanzlei settings page: each setting a typed field, checked by `OfficeSettings` and the
    service (a bad value is an error on its field, never raw JSON)."""

    input_model = OfficeSettings

    office_name = forms.CharField(label=_("Office name"), max_length=200, required=False)
    office_address = forms.CharField(
        label=_("Office address"),
        max_length=500,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Shown with the office name on the Fristenbuch reports."),
    )
    bundesland = forms.ChoiceField(
        label=_("Federal state"),
        help_text=_("Its public holidays end deadlines that fall on them."),
    )
    client_prefix = forms.CharField(label=_("Client numbers: prefix"), max_length=16, required=False)
    client_start = forms.IntegerField(label=_("Client numbers: start"), min_value=1)
    client_width = forms.IntegerField(label=_("Client numbers: digits"), min_value=1, max_value=12)
    case_prefix = forms.CharField(
        label=_("Case references: prefix"),
        max_length=16,
        required=False,
        help_text=_("{JJJJ} stands for the current year, e.g. {JJJJ}- gives 2026-0001."),
    )
    case_start = forms.IntegerField(label=_("Case references: start"), min_value=1)
    case_width = forms.IntegerField(label=_("Case references: digits"), min_value=1, max_value=12)
    default_model_id = forms.TypedChoiceField(
        label=_("Default chat model"), coerce=int, required=False, empty_value=None
    )

    def __init__(self, data=None, *, initial=None, lands, models):
        super().__init__(data, initial=initial)
        self.fields["bundesland"].choices = sorted(lands.items(), key=lambda item: item[1])
        self.fields["default_model_id"].choices = [("", _("None configured"))] if not models else []
        self.fields["default_model_id"].choices += [(str(pk), label) for pk, label in models]

    def model_values(self) -> dict:
        # Blank prefixes and the address are values here ("" = none), not "not given".
        values = super().model_values()
        for name in ("office_name", "office_address", "client_prefix", "case_prefix"):
            values.setdefault(name, self.cleaned_data.get(name) or "")
        return values
