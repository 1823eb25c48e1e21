"""What the clients services offer other domains (links, pickers, name matches) goes through the
one visibility rule: a client the rule hides is never resolved, offered or matched."""

import pytest

from apps.clients import services
from apps.clients.errors import ClientNotFound

pytestmark = pytest.mark.django_db


def test_a_hidden_client_is_never_resolved_offered_or_matched(as_anna, meier, hidden_client):
    assert services.resolve_client(as_anna, meier.pk) == meier
    assert services.resolve_client(as_anna, None) is None
    with pytest.raises(ClientNotFound) as exc:
        services.resolve_client(as_anna, hidden_client.pk, field="client")
    assert exc.value.field_errors == {"client": exc.value.message}
    assert services.resolve_clients(as_anna, [hidden_client.pk, meier.pk, meier.pk]) == [meier]
    assert services.resolve_clients(as_anna, []) == []
    assert [pk for pk, _label in services.client_choices(as_anna)] == [meier.pk]
    assert (meier.pk, "Meier GmbH (10003)") in services.client_choices(as_anna)
    assert {row["id"] for row in services.visible_client_ids(as_anna)} == {meier.pk}
    assert {row["id"] for row in services.client_ids_matching(as_anna, "meier")} == {meier.pk}
    assert not services.client_ids_matching(as_anna, hidden_client.name).exists()
