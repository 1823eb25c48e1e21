"""One submit shows every error (issue 14, item 10): a form's own field errors and its input
model's errors together, not the model's only after the fields are fixed."""

from django import forms
from pydantic import BaseModel, Field

from apps.core.surfaces.forms import InputModelForm


class Pair(BaseModel):
    count: int
    limit: int = Field(ge=1)


class PairForm(InputModelForm):
    input_model = Pair
    count = forms.IntegerField()
    limit = forms.IntegerField()


def test_field_and_model_errors_show_together():
    form = PairForm(data={"count": "many", "limit": "0"})
    assert not form.is_valid()
    assert set(form.errors) == {"count", "limit"}
    # The unparsable count has its own error only (not also the model's "field required").
    assert len(form.errors["count"]) == 1
    assert not hasattr(form, "validated")


def test_a_valid_form_keeps_the_validated_model():
    form = PairForm(data={"count": "3", "limit": "2"})
    assert form.is_valid()
    assert form.validated == Pair(count=3, limit=2)
