"""The admin decides on proposals through the same services."""

import pytest
from django.urls import reverse

from apps.wiki import proposals
from apps.wiki.models import WikiProposal

pytestmark = pytest.mark.django_db


def test_admin_lists_and_decides(client, admin_user, as_anna, handbook):
    accepted, _ = proposals.propose_change(as_anna, slug="posteingang", body="Per Admin angenommen")
    rejected, _ = proposals.propose_change(as_anna, slug="datenschutz", body="Per Admin abgelehnt")
    client.force_login(admin_user)
    url = reverse("admin:wiki_wikiproposal_changelist")
    assert client.get(url).status_code == 200
    assert client.get(reverse("admin:wiki_wikipage_changelist")).status_code == 200
    assert client.get(reverse("admin:wiki_wikipage_change", args=[handbook["post"].pk])).status_code == 200
    assert client.get(reverse("admin:wiki_wikirevision_changelist")).status_code == 200
    client.post(url, {"action": "accept", "_selected_action": [accepted.pk]})
    client.post(url, {"action": "reject", "_selected_action": [rejected.pk]})
    statuses = dict(WikiProposal.objects.values_list("pk", "status"))
    assert statuses == {accepted.pk: "accepted", rejected.pk: "rejected"}
    assert handbook["post"].revisions.count() == 2


def test_admin_deletes_pages_through_the_service(client, admin_user, handbook, as_anna):
    from apps.core.errors import Forbidden
    from apps.mutations.models import MutationEvent
    from apps.wiki import services
    from apps.wiki.models import WikiPage

    with pytest.raises(Forbidden):
        services.delete_page(as_anna, page_id=handbook["daten"].pk)
    client.force_login(admin_user)
    url = reverse("admin:wiki_wikipage_changelist")
    client.post(url, {"action": "delete_selected", "_selected_action": [handbook["daten"].pk], "post": "yes"})
    assert not WikiPage.objects.filter(slug="datenschutz").exists()
    assert MutationEvent.objects.filter(topic="wiki.page.deleted").count() == 1
