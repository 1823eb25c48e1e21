"""A merge made by the memory check shows in the review log and a person can undo it: the merged
memory stands on its own again with the sources it brought, the memory it was merged into gives
back its confirmation (`services.unmerge`, the review log's button)."""

import pytest
from django.urls import reverse

from apps.core.inputs import build
from apps.memory import services
from apps.memory.contracts import MemoryStore
from apps.memory.models import Memory
from apps.memory.visibility import Reader, usable

pytestmark = pytest.mark.django_db

FIRST = "Die Kanzlei schließt freitags um 14 Uhr."
REWORDED = "Freitags schließt die Kanzlei um 14 Uhr."


def merged_pair(principal, scope="personal"):
    kept = services.store(principal, build(MemoryStore, text=FIRST, scope=scope, quote="erste")).memory
    merged = services.store(principal, build(MemoryStore, text=REWORDED, scope=scope, quote="zweite")).memory
    merged.refresh_from_db()
    kept.refresh_from_db()
    assert (merged.duplicate_of_id, kept.confirmations, kept.sources.count()) == (kept.pk, 2, 2)
    return kept, merged


def test_undoing_a_merge_restores_both_memories_and_is_audited(as_anna):
    kept, merged = merged_pair(as_anna)
    log, _total = services.review_log(as_anna)
    assert [(r.action, r.memory_id) for r in log] == [("merged", merged.pk)]

    services.unmerge(as_anna, merged.pk, note="zwei verschiedene Aussagen")
    merged.refresh_from_db()
    kept.refresh_from_db()
    assert (merged.duplicate_of_id, merged.assertion, merged.review) == (None, "asserted", "approved")
    assert [s.quote for s in merged.sources.all()] == ["zweite"]
    assert [s.quote for s in kept.sources.all()] == ["erste"]
    assert (kept.confirmations, kept.assertion) == (1, "asserted")
    assert set(usable(Reader.of(as_anna))) == {kept, merged}
    log, _total = services.review_log(as_anna)
    assert next((r.action, r.memory_id, r.note) for r in log) == (
        "unmerged",
        merged.pk,
        "zwei verschiedene Aussagen",
    )
    assert kept.revisions.last().note == f"merge of memory:{merged.pk} undone"

    with pytest.raises(services.NotMerged) as again:
        services.unmerge(as_anna, merged.pk)
    assert again.value.code == "memory_not_merged"


def test_only_who_may_decide_about_the_memory_undoes_its_merge(as_anna, as_ben):
    _kept, merged = merged_pair(as_anna)
    with pytest.raises(services.MemoryNotFound):
        services.unmerge(as_ben, merged.pk)
    assert Memory.objects.get(pk=merged.pk).duplicate_of_id is not None


def test_a_merge_undone_after_the_same_words_were_stored_again_is_refused(as_anna):
    kept, merged = merged_pair(as_anna)
    Memory.objects.filter(pk=kept.pk).update(assertion="retracted")  # its place taken by another
    services.store(
        as_anna, build(MemoryStore, text=REWORDED + " ", scope="personal")
    )  # the same words, live again
    with pytest.raises(services.DuplicateMemory):
        services.unmerge(as_anna, merged.pk)
    assert Memory.objects.get(pk=merged.pk).duplicate_of_id == kept.pk  # nothing half-written


def test_the_review_log_offers_the_undo_and_the_button_undoes_it(client, boss, as_boss):
    _kept, merged = merged_pair(as_boss, scope="shared")
    client.force_login(boss)
    page = client.get(reverse("review:queue"), {"kind": "memory", "state": "decided"})
    assert page.status_code == 200
    action = reverse("memory:unmerge", args=[merged.pk])
    assert action in page.content.decode()
    back = "/pruefen/?kind=memory&state=decided"
    response = client.post(action, {"return_to": back})
    assert (response.status_code, response["Location"]) == (302, back)
    assert Memory.objects.get(pk=merged.pk).duplicate_of_id is None
    page = client.get(reverse("review:queue"), {"kind": "memory", "state": "decided"})
    assert action not in page.content.decode()  # undone: no button any more
    response = client.post(action, {"return_to": "https://evil.example/"})
    assert response["Location"].startswith("/")  # refused (not merged), and never sent elsewhere


def test_the_memory_page_offers_the_undo_for_ones_own_merged_memory(client, anna, as_anna):
    _kept, merged = merged_pair(as_anna)
    client.force_login(anna)
    page = client.get(reverse("memory:index"))
    action = reverse("memory:unmerge", args=[merged.pk])
    assert page.status_code == 200 and action in page.content.decode()
    response = client.post(action, {"return_to": reverse("memory:index")})
    assert response["Location"] == reverse("memory:index")
    assert Memory.objects.get(pk=merged.pk).duplicate_of_id is None
    assert action not in client.get(reverse("memory:index")).content.decode()
