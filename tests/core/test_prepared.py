"""`apps.core.db.prepared.Prepared`: a queryset compiled once answers what the queryset answers."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.principal import Principal
from apps.apikeys import services as apikeys
from apps.apikeys.models import ApiKey
from apps.core.db.prepared import SHAPE, Prepared, Unpreparable
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

BY_PREFIX = Prepared(
    lambda prefix: ApiKey.objects.select_related("created_by").filter(prefix=prefix), prefix=str
)
IDS_OF = Prepared(
    lambda user_id, name: ApiKey.objects.filter(created_by_id=user_id, name=name).values_list(
        "id", flat=True
    ),
    user_id=int,
    name=str,
)


@pytest.fixture
def keys():
    admin = UserFactory(role="admin")
    other = UserFactory(role="admin")
    made = [
        apikeys.create_api_key(Principal.for_user(user), name=name, scopes=["tools:execute"])[0]
        for user, name in [(admin, "a"), (admin, "b"), (other, "a")]
    ]
    return admin, other, made


def test_rows_are_what_the_queryset_gives(keys):
    made = keys[2]
    for key in made:
        expected = list(ApiKey.objects.select_related("created_by").filter(prefix=key.prefix))
        (found,) = BY_PREFIX(prefix=key.prefix)
        assert found == expected[0]
        assert {f.attname: getattr(found, f.attname) for f in ApiKey._meta.concrete_fields} == {
            f.attname: getattr(expected[0], f.attname) for f in ApiKey._meta.concrete_fields
        }
        with CaptureQueriesContext(connection) as queries:
            assert found.created_by == key.created_by  # loaded with the row: no query
            assert found.created_by.email == key.created_by.email
        assert not queries
        assert not found._state.adding and found._state.db == "default"
    assert BY_PREFIX(prefix="clp_nothing") == []


def test_values_lists_and_several_slots(keys):
    admin, other, made = keys
    assert IDS_OF(user_id=admin.pk, name="a") == [made[0].pk]
    assert IDS_OF(user_id=other.pk, name="a") == [made[2].pk]
    assert IDS_OF(user_id=other.pk, name="b") == []


def test_one_query_with_the_values_as_parameters(keys):
    made = keys[2]
    with CaptureQueriesContext(connection) as queries:
        BY_PREFIX(prefix=made[1].prefix)
    assert len(queries) == 1
    assert made[1].prefix in queries[0]["sql"]  # the debug cursor shows the bound values


def test_values_must_have_the_declared_type(keys):
    with pytest.raises(TypeError):
        IDS_OF(user_id="1", name="a")
    with pytest.raises(TypeError):
        IDS_OF(user_id=1)


def test_a_shape_that_depends_on_the_values_is_refused():
    shape_varies = Prepared(
        lambda name: ApiKey.objects.filter(name=name) if name.startswith("x") else ApiKey.objects.all(),
        name=str,
    )
    with pytest.raises(Unpreparable):
        shape_varies(name="a")
    derived = Prepared(lambda name: ApiKey.objects.filter(name__contains=name), name=str)  # `%name%`
    with pytest.raises(Unpreparable):
        derived(name="a")
    unused = Prepared(lambda name: ApiKey.objects.all(), name=str)
    with pytest.raises(Unpreparable):
        unused(name="a")


PAGE = Prepared(
    lambda ids, offset, limit: (
        ApiKey.objects.filter(pk__in=ids).order_by("pk").values_list("pk", "name")[offset : offset + limit]
    ),
    ids=list,
    offset=SHAPE,
    limit=SHAPE,
)


def test_lists_and_shapes_select_a_statement_each(keys):
    made = keys[2]
    ids = [k.pk for k in made]
    for chosen in ([], ids[:1], ids[1:], ids, [*ids, 0]):
        for offset, limit in ((0, 2), (1, 5)):
            expected = list(
                ApiKey.objects.filter(pk__in=chosen)
                .order_by("pk")
                .values_list("pk", "name")[offset : offset + limit]
            )
            assert PAGE(ids=chosen, offset=offset, limit=limit) == expected
    with CaptureQueriesContext(connection) as queries:
        assert PAGE(ids=[], offset=0, limit=2) == []
    assert not queries  # Django knows `IN ()` is empty too


def test_first_is_the_first_row_or_none(keys):
    key = keys[2][0]
    assert BY_PREFIX.first(prefix=key.prefix) == key
    assert BY_PREFIX.first(prefix="clp_nothing") is None
