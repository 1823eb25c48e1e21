"""The small query helpers of `apps.core.db` that several apps' services share: the admin's
row-or-not_found lookups (`lookup`) and the optional list filters (`narrowing`)."""

from __future__ import annotations

import pytest

from apps.core.db.lookup import delete_existing, existing, new_or_existing
from apps.core.db.narrowing import narrowed
from apps.core.errors import NotFound
from apps.core.models import InstanceSetting

pytestmark = pytest.mark.django_db

MISSING = "There is no setting with id %(id)s."


def test_existing_finds_the_row_or_answers_not_found():
    row = InstanceSetting.objects.create(key="k1", value={"a": 1})
    assert existing(InstanceSetting, row.pk, MISSING) == row
    with pytest.raises(NotFound) as caught:
        existing(InstanceSetting, row.pk + 1000, MISSING)
    assert caught.value.message == f"There is no setting with id {row.pk + 1000}."
    assert caught.value.field_errors == {}


def test_existing_names_the_field_when_asked():
    with pytest.raises(NotFound) as caught:
        existing(InstanceSetting, 987654, MISSING, field="id")
    assert caught.value.field_errors == {"id": "There is no setting with id 987654."}


def test_new_or_existing_makes_an_unsaved_row_for_none_only():
    before = InstanceSetting.objects.count()
    fresh = new_or_existing(InstanceSetting, None, MISSING)
    assert fresh.pk is None and InstanceSetting.objects.count() == before
    row = InstanceSetting.objects.create(key="k2")
    assert new_or_existing(InstanceSetting, row.pk, MISSING) == row
    with pytest.raises(NotFound):
        new_or_existing(InstanceSetting, 0, MISSING)  # 0 is an id, not "add"


def test_delete_existing_deletes_once_then_answers_not_found():
    row = InstanceSetting.objects.create(key="k3")
    delete_existing(InstanceSetting, row.pk, MISSING)
    assert not InstanceSetting.objects.filter(pk=row.pk).exists()
    with pytest.raises(NotFound) as caught:
        delete_existing(InstanceSetting, row.pk, MISSING)
    assert caught.value.message == f"There is no setting with id {row.pk}."


def test_narrowed_skips_none_and_empty_text_only():
    InstanceSetting.objects.create(key="a")
    InstanceSetting.objects.create(key="b")
    everything = InstanceSetting.objects.filter(key__in=["a", "b"])
    assert narrowed(everything, key=None) is everything
    assert narrowed(everything, key="", pk=None) is everything
    assert [s.key for s in narrowed(everything, key="b", pk=None)] == ["b"]
    assert list(narrowed(everything, pk=0)) == []  # 0 is a value, it narrows
    assert [s.key for s in narrowed(everything, key__in=["a", "b"], key__startswith="a")] == ["a"]
