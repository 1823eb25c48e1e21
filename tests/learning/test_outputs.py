"""The output models build the tools' records themselves: byte for byte what the hand-written
`records.py` builders sent (the dispatcher writes both with Django's JSON encoder). The builders
below are those of `apps/learning/records.py` before it went, kept as the reference."""

import json

import pytest
from django.core.serializers.json import DjangoJSONEncoder

from apps.core.records import attrs
from apps.learning import contracts as c
from apps.learning.models import LearningEvidence
from tests.learning.conftest import fact

pytestmark = pytest.mark.django_db


def object_record(obj):
    return {
        "id": obj.ref,
        "object_id": obj.pk,
        **attrs(obj, "kind", "text", "subject", "status", "staged_reason"),
        "conflicts_with": obj.conflicts_with_id,
        **attrs(obj, "confidence", "confirmations", "checked_at", "created_at", "updated_at"),
    }


def evidence_record(evidence):
    return attrs(evidence, "run_id", "quote", "created_at")


def object_detail(obj, evidence):
    return object_record(obj) | {"evidence": [evidence_record(e) for e in evidence]}


def wire(value):
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False)


@pytest.fixture
def objects():
    old = fact("Die Kanzlei öffnet um 8 Uhr.", subject="kanzlei.öffnung", confidence=0.95)
    new = fact("Die Kanzlei öffnet um 9 Uhr.", subject="kanzlei.öffnung", confidence=None, correction=True)
    return old, new


def test_object_records_are_byte_for_byte_the_builders(objects):
    old, new = objects
    assert new.conflicts_with_id == old.pk
    with_check = type(old).objects.get(pk=old.pk)
    for obj in (old, new, with_check):
        evidence = list(LearningEvidence.objects.filter(learning_object=obj))
        assert wire(c.LearningObjectOut.of(obj).model_dump()) == wire(object_record(obj))
        detail = c.LearningObjectDetailOut.of_object(obj, evidence).model_dump()
        assert wire(detail) == wire(object_detail(obj, evidence))
        for e in evidence:  # context_get sends the evidence with its moment as text
            assert wire(c.EvidenceOut.record(e)) == wire(
                evidence_record(e) | {"created_at": e.created_at.isoformat()}
            )


def test_a_dict_in_the_output_shape_still_validates(objects):
    old, _new = objects
    assert c.LearningObjectOut.of(object_record(old)) == c.LearningObjectOut.of(old)
