"""Form helpers shared by every app's pages.

`BaselineEditor` is the editor of a row that others (colleagues, the copilot) may change while
it is open. Each field has a hidden `base_<field>`: the value the person started from (rebased by
live updates). Only fields whose submitted value differs from their base are saved, so a save
never reverts a change someone else made meanwhile to a field this person did not touch.

`InputModelForm` validates a form's values through the operation's pydantic input model, so the
rules live once (on the model) and a page shows the same messages as the API and the tools.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, ClassVar

from django import forms
from pydantic import BaseModel, ValidationError

from apps.core import validation
from apps.core.messages import validation_message


def validate_year_range(value: Any) -> None:
    """The forms' side of the one date bound (`validation.YEAR_MIN`–`YEAR_MAX`)."""
    if isinstance(value, dt.date) and not validation.year_in_range(value):
        raise forms.ValidationError(validation.date_out_of_range_message(), code="date_out_of_range")


class BoundedDateField(forms.DateField):
    """A date field of a page form: a year outside the bound is a field error (`date_out_of_range`);
    a date picker offers only days inside it."""

    default_validators = [validate_year_range]

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        attrs = super().widget_attrs(widget)
        if "date" in (widget.input_type, widget.attrs.get("type")):
            attrs.setdefault("min", f"{validation.YEAR_MIN}-01-01")
            attrs.setdefault("max", f"{validation.YEAR_MAX}-12-31")
        return attrs


class BaselineEditor(forms.Form):
    # form field → service field; subclasses name the fields the editor saves.
    EDITOR_FIELDS: ClassVar[dict[str, str]] = {}

    def add_baselines(self) -> None:
        """Call at the end of `__init__`, once `self.initial` holds the row's current values."""
        for name in self.EDITOR_FIELDS:
            self.fields[f"base_{name}"] = forms.CharField(required=False, widget=forms.HiddenInput)
            value = self.initial.get(name, "")
            self.initial[f"base_{name}"] = ",".join(value) if isinstance(value, list) else value

    def submitted(self, name: str) -> str:
        """The submitted value as the baseline stores it (multi-values joined and sorted)."""
        field = self.fields.get(name)
        if isinstance(field, forms.MultipleChoiceField):
            return ",".join(sorted(self.data.getlist(name)))
        if isinstance(field, forms.BooleanField):
            return "on" if self.data.get(name) else ""
        return self.data.get(name, "").replace("\r\n", "\n")

    def is_changed(self, name: str) -> bool:
        submitted = self.submitted(name)
        base = self.data.get(f"base_{name}", submitted).replace("\r\n", "\n")
        if isinstance(self.fields.get(name), forms.MultipleChoiceField):
            base = ",".join(sorted(filter(None, base.split(","))))
        return submitted != base

    def changed_fields(self) -> list[str]:
        return [name for name in self.EDITOR_FIELDS if self.is_changed(name)]

    def changed_against_baseline(self) -> dict[str, Any]:
        """Service field → cleaned value, for the fields the person changed (empty → None or "")."""
        changes = {}
        for name in self.changed_fields():
            value = self.cleaned_data.get(name)
            changes[self.EDITOR_FIELDS[name]] = self.empty_value(name) if value in ("", None) else value
        return changes

    def empty_value(self, name: str) -> Any:
        """What an emptied field is saved as: None for references and dates, "" for text."""
        return "" if isinstance(self.fields[name], forms.CharField) else None


class InputModelForm(forms.Form):
    """A form whose `clean()` also validates through `input_model`; the validated model instance
    is `self.validated` afterwards. Field names map to the model's names via `MODEL_FIELDS`
    (default: the same name)."""

    input_model: ClassVar[type[BaseModel]]
    MODEL_FIELDS: ClassVar[dict[str, str]] = {}

    def model_values(self) -> dict[str, Any]:
        values = {}
        for name, value in self.cleaned_data.items():
            if name.startswith("base_") or value in ("", None):
                continue
            values[self.MODEL_FIELDS.get(name, name)] = value
        return values

    def clean(self):
        """The input model is checked even when some fields failed already, so one submit shows
        every error at once; a field keeps only its first (form) error."""
        cleaned = super().clean()
        failed = set(self.errors)
        try:
            validated = self.input_model.model_validate(self.model_values())
        except ValidationError as exc:
            add_model_errors(self, exc, self.MODEL_FIELDS, failed=failed)
        else:
            if not failed:
                self.validated = validated
        return cleaned


def add_model_errors(
    form: forms.Form, exc: ValidationError, model_fields: dict[str, str], failed: set[str] | None = None
) -> None:
    """Each error of an input model on the form field it belongs to (`model_fields`: form field →
    model field; unknown fields: a form-wide error), in the viewer's language. `failed`: fields
    that already have an error (a value missing because it did not parse says nothing new);
    while any has, form-wide errors of the model are left out (they judged incomplete input)."""
    reverse = {model: name for name, model in model_fields.items()}
    for error in exc.errors(include_url=False):
        field = str(error["loc"][0]) if error["loc"] else None
        name = reverse.get(field, field)
        target = name if name in form.fields else None
        if failed and (target in failed or target is None):
            continue
        form.add_error(target, validation_message(error))
