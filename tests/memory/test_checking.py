"""The deferred half of storing: the request stores (exact dedup) and queues the check; until the
worker has embedded and checked the memory it is kept but never returned to a model, and not yet
in the review queue. Then: usable, merged into a near-duplicate, or staged as a conflict. Also:
`memory_search` in one statement (its query count pinned) with the same records as the ORM."""

import datetime as dt

import pytest
from django.utils import timezone

from apps.core.inputs import build
from apps.core.origin import Origin
from apps.memory import checking, jobs, maintenance, reads, services
from apps.memory.contracts import MemoryOut, MemorySearch, MemoryStore
from apps.memory.models import Memory
from apps.memory.records import with_relations
from apps.memory.visibility import Reader, held, usable
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.waiting import wait_for
from tests.workers import in_process_worker

FACT = "Die Kanzlei schließt freitags um 14 Uhr."


@pytest.fixture
def sent(monkeypatch):
    """The check jobs sent to the broker (their ids), instead of sending them."""
    ids: list[int] = []
    monkeypatch.setattr(jobs.check, "delay", ids.append)
    return ids


@pytest.mark.django_db
def test_a_stored_memory_is_used_only_once_the_worker_checked_it(
    as_anna, deferred_checks, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        stored = services.store(as_anna, build(MemoryStore, text=FACT, scope="personal"))
    assert (stored.outcome, stored.memory.review, stored.memory.checking) == ("created", "approved", True)
    assert MemoryOut.record(stored.memory)["checking"] is True and stored.notices
    assert sent == [stored.memory.pk]  # queued once the store committed
    reader = Reader.of(as_anna)
    assert list(held(reader)) == [stored.memory]  # on the memory page meanwhile
    assert (
        list(usable(reader)) == []
        and reads.search_memory(as_anna, build(MemorySearch, query="Kanzlei freitags"))["memories"] == []
    )

    assert jobs.check(stored.memory.pk) == "created"  # the worker's job
    checked = Memory.objects.get(pk=stored.memory.pk)
    assert (checked.checking, checked.embedding is not None) == (False, True)
    assert [
        m["id"]
        for m in reads.search_memory(as_anna, build(MemorySearch, query="Kanzlei freitags"))["memories"]
    ] == [checked.pk]
    assert jobs.check(stored.memory.pk) is None  # a redelivered job finds it checked: nothing


@pytest.mark.django_db
def test_the_same_text_said_while_checking_confirms_it(as_anna, deferred_checks, sent):
    first = services.store(as_anna, build(MemoryStore, text=FACT, scope="personal"))
    again = services.store(as_anna, build(MemoryStore, text=FACT.lower(), scope="personal"))
    assert (again.outcome, again.memory.pk, again.memory.confirmations) == ("confirmed", first.memory.pk, 2)


@pytest.mark.django_db
def test_a_shared_memory_reaches_the_review_queue_once_checked(as_anna, as_boss, deferred_checks, sent):
    stored = services.store(
        as_anna,
        build(MemoryStore, text="Das Büro ist am 24.12. geschlossen."),
        origin=Origin(surface="agent", run_id="1"),
    )
    assert list(services.reviewable(as_boss)) == []
    checking.run(stored.memory.pk)
    assert [m.pk for m in services.reviewable(as_boss)] == [stored.memory.pk]


@pytest.mark.django_db
def test_a_conflict_found_by_the_check_is_staged_and_announced(as_anna, deferred_checks, sent, monkeypatch):
    from apps.memory import events

    announced = []
    monkeypatch.setattr(events, "changed", lambda memory, topic: announced.append((memory.pk, topic)))
    old = services.store(as_anna, build(MemoryStore, text=FACT, scope="personal")).memory
    checking.run(old.pk)
    new = services.store(
        as_anna, build(MemoryStore, text="Die Kanzlei schließt freitags um 15 Uhr.", scope="personal")
    ).memory
    announced.clear()
    assert checking.run(new.pk) == "conflict"
    new.refresh_from_db()
    old.refresh_from_db()
    assert (new.review, new.conflicts_with_id, old.assertion) == ("pending", old.pk, "disputed")
    assert list(new.revisions.values_list("action", flat=True)) == ["created", "conflict_staged"]
    assert announced == [(old.pk, "memory.memory.updated"), (new.pk, "memory.memory.updated")]
    assert list(usable(Reader.of(as_anna))) == [old]  # the challenger reaches no model


@pytest.mark.django_db
def test_a_lost_check_job_is_picked_up_by_the_periodic_job(as_anna, deferred_checks, sent):
    stored = services.store(as_anna, build(MemoryStore, text=FACT, scope="personal")).memory
    assert maintenance.recheck() == 0  # just stored: its own job is on the way
    Memory.objects.filter(pk=stored.pk).update(created_at=timezone.now() - dt.timedelta(minutes=5))
    assert jobs.reembed() >= 1
    assert Memory.objects.get(pk=stored.pk).checking is False


@pytest.mark.django_db(transaction=True)
def test_the_check_runs_in_a_real_worker_after_commit(as_anna, deferred_checks):
    with in_process_worker():
        stored = services.store(as_anna, build(MemoryStore, text=FACT, scope="personal")).memory
        wait_for(lambda: not Memory.objects.get(pk=stored.pk).checking)
    assert [
        m["id"]
        for m in reads.search_memory(as_anna, build(MemorySearch, query="Kanzlei freitags"))["memories"]
    ] == [stored.pk]


@pytest.mark.django_db
def test_memory_search_is_one_statement_with_the_records_of_the_orm(
    as_anna, as_boss, meier, boss, django_assert_num_queries
):
    from apps.clients.models import Case

    case = Case.objects.create(reference="2027/0042", subject="Jahresabschluss", client=meier)
    services.store(
        as_boss,
        build(
            MemoryStore,
            text="Meier bekommt die Post per Einschreiben.",
            subject_client_id=meier.pk,
            subject_case_id=case.pk,
            subject_person_id=boss.pk,
        ),
    )
    services.store(
        as_anna,
        build(MemoryStore, text="Ich rufe Meier dienstags an.", scope="personal", subject_client_id=meier.pk),
    )
    ctx = ToolContext(principal=as_anna)
    dispatch("memory_search", {"query": "Post Meier"}, ctx)  # warm: model loaded, plans cached
    # The dispatcher's check that the person is still active, the embeddings settings (once per
    # request), the search with its records in one statement, the audit row (one round trip
    # outside a transaction; here, inside the test's, with a savepoint around it: three).
    with django_assert_num_queries(6) as captured:
        result = dispatch("memory_search", {"query": "Post Meier Einschreiben"}, ctx)
    assert sum("memory_memory" in q["sql"] for q in captured.captured_queries) == 1
    found = result.output["memories"]
    assert len(found) == 2
    for record in found:
        expected = MemoryOut.record(with_relations(Memory.objects).get(pk=record["id"]))
        assert {k: v for k, v in record.items() if k != "score"} == expected
