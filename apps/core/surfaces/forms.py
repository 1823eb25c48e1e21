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
from types import UnionType
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin

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

    @staticmethod
    def shown(value: Any) -> str:
        """A row's value as the editor shows it and its baseline holds it: a date in ISO form, a
        yes as a ticked box ("on"), a no and none as ""."""
        if value is None or value is False:
            return ""
        if value is True:
            return "on"
        return value.isoformat() if isinstance(value, dt.date) else str(value)


class InputModelForm(forms.Form):
    """A form whose `clean()` also validates through `input_model`; the validated model instance
    is `self.validated` afterwards. Field names map to the model's names via `MODEL_FIELDS`
    (default: the same name).

    With `DERIVED_FIELDS = "__all__"` (or a tuple of names) every field of the input model that the
    form neither declares nor maps gets a form field built from the model (`input_field`): a field
    added to the contract appears on the page without touching the form; `NOT_DERIVED` names the
    model fields a page never edits."""

    input_model: ClassVar[type[BaseModel]]
    MODEL_FIELDS: ClassVar[dict[str, str]] = {}
    DERIVED_FIELDS: ClassVar[tuple[str, ...] | Literal["__all__"]] = ()
    NOT_DERIVED: ClassVar[frozenset[str]] = frozenset()
    validated: BaseModel

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in self.derived_names():
            self.fields[name] = input_field(self.input_model, name)

    @classmethod
    def derived_names(cls) -> list[str]:
        taken = set(cls.base_fields) | set(cls.MODEL_FIELDS.values())
        names = list(cls.input_model.model_fields) if cls.DERIVED_FIELDS == "__all__" else cls.DERIVED_FIELDS
        return [n for n in names if n not in taken and n not in cls.NOT_DERIVED]

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


def input_field(model: type[BaseModel], name: str) -> forms.Field:
    """A page form field for one field of an input model: text (a textarea beyond 1,000
    characters), a date (the one year bound, a date picker), a number, a yes/no, or a choice of a
    `Literal`; required when the model requires it; labelled with the model field's `title`, else
    its name."""
    info = model.model_fields[name]
    annotation, optional = _unwrapped(info.annotation)
    required = info.is_required() and not optional
    label = info.title or name.replace("_", " ").capitalize()
    max_length = next((m.max_length for m in info.metadata if getattr(m, "max_length", None)), None)
    help_text = info.description or ""
    if get_origin(annotation) is Literal:
        choices = [(str(v), str(v)) for v in get_args(annotation)]
        return forms.ChoiceField(label=label, required=required, choices=choices, help_text=help_text)
    if annotation is bool:
        return forms.BooleanField(label=label, required=False, help_text=help_text)
    if annotation is int:
        return forms.IntegerField(label=label, required=required, help_text=help_text)
    if annotation is dt.date:
        widget = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
        return BoundedDateField(label=label, required=required, widget=widget, help_text=help_text)
    long_text = max_length is not None and max_length > 1000
    return forms.CharField(
        label=label,
        required=required,
        max_length=max_length,
        widget=forms.Textarea(attrs={"rows": 4}) if long_text else None,
        help_text=help_text,
    )


def _unwrapped(annotation: Any) -> tuple[Any, bool]:
    """`X | None` → (X, True); `Annotated[X, …]` → X."""
    optional = False
    if get_origin(annotation) in (Union, UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        optional = len(args) < len(get_args(annotation))
        annotation = args[0] if len(args) == 1 else str
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation, optional


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
