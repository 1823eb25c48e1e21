"""Forms of the memory page (`views.index`): they validate through the input model
(`InputModelForm`); `apps.memory.services` takes the validated model and writes."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.core.surfaces.forms import InputModelForm
from apps.memory.contracts import MemoryUpdate
from apps.memory.models import NOTE_MAX, TEXT_MAX, Kind


class MemoryEditForm(InputModelForm):
    input_model = MemoryUpdate
    validated: MemoryUpdate

    text = forms.CharField(label=_("Text"), max_length=TEXT_MAX, widget=forms.Textarea(attrs={"rows": 3}))
    kind = forms.ChoiceField(label=_("Kind"), choices=Kind.choices)
    note = forms.CharField(label=_("Why (optional)"), max_length=NOTE_MAX, required=False)
