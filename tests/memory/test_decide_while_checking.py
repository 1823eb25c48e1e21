"""A reviewer's decision and the worker's memory check never overwrite each other (issue #25: 5 of
12 memories approved or rejected while being checked went back to "pending"). The check embeds
without holding the row, then takes its verdict and writes under the row lock that a decision
takes too; a memory decided meanwhile keeps its decision."""

import threading

import pytest
from django.db import connection, connections

from apps.core.inputs import build
from apps.core.origin import Origin
from apps.memory import checking, dedup, services, similarity
from apps.memory.contracts import MemoryReview, MemoryStore
from apps.memory.models import Memory
from apps.memory.visibility import Reader, usable
from tests.waiting import wait_for
from tests.workers import in_process_worker

OLD = "Die Kanzlei schließt freitags um 14 Uhr."
NEW = "Die Kanzlei schließt freitags um 15 Uhr."
REWORDED = "Freitags schließt die Kanzlei um 14 Uhr."
STATE = {"approve": "approved", "reject": "rejected"}


@pytest.fixture
def sent(monkeypatch):
    from apps.memory import jobs

    ids: list[int] = []
    monkeypatch.setattr(jobs.check, "delay", ids.append)
    return ids


def approved(as_boss, text):
    """An approved, checked office memory."""
    memory = services.store(as_boss, build(MemoryStore, text=text)).memory
    checking.run(memory.pk)
    memory.refresh_from_db()
    assert (memory.review, memory.checking) == ("approved", False)
    return memory


def from_the_agent(as_anna, text):
    memory = services.store(
        as_anna, build(MemoryStore, text=text), origin=Origin(surface="agent", run_id="1")
    ).memory
    assert (memory.review, memory.checking) == ("pending", True)
    return memory


def decided_while_embedding(monkeypatch, as_boss, memory, decision, *, vector=True):
    """The reviewer decides between the check's read and its write (while the text is embedded)."""
    real = similarity.embed

    def embed(text, subject):
        result = real(text, subject) if vector else (None, "")
        services.review(
            as_boss, memory.pk, build(MemoryReview, decision=decision, note="während der Prüfung")
        )
        return result

    monkeypatch.setattr(similarity, "embed", embed)


@pytest.mark.django_db
@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_a_conflict_decided_while_checking_keeps_the_decision(
    as_anna, as_boss, deferred_checks, sent, monkeypatch, decision
):
    old = approved(as_boss, OLD)
    new = from_the_agent(as_anna, NEW)
    decided_while_embedding(monkeypatch, as_boss, new, decision)
    assert checking.run(new.pk) == "decided"
    new.refresh_from_db()
    old.refresh_from_db()
    assert (new.review, new.reviewed_by, new.checking) == (STATE[decision], as_boss.user, False)
    actions = list(new.revisions.values_list("action", flat=True))
    assert actions == ["created", STATE[decision], "updated"]
    if decision == "approve":  # the contradiction is recorded beside the decision, not staged
        assert (new.conflicts_with_id, new.conflict["reason"], old.assertion) == (
            old.pk,
            "numbers",
            "disputed",
        )
        assert set(usable(Reader.of(as_boss))) == {old, new}
    else:
        assert (new.conflicts_with_id, old.assertion) == (None, "asserted")
        assert list(usable(Reader.of(as_boss))) == [old]
    assert list(services.reviewable(as_boss)) == []  # nothing went back to the queue


@pytest.mark.django_db
@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_a_memory_decided_while_its_embedding_failed_keeps_the_decision(
    as_anna, as_boss, deferred_checks, sent, monkeypatch, decision
):
    new = from_the_agent(as_anna, NEW)
    decided_while_embedding(monkeypatch, as_boss, new, decision, vector=False)
    assert checking.run(new.pk) == "unchecked"
    new.refresh_from_db()
    assert (new.review, new.checking) == (STATE[decision], False)


@pytest.mark.django_db
@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_a_duplicate_decided_while_checking(as_anna, as_boss, deferred_checks, sent, monkeypatch, decision):
    kept = approved(as_boss, OLD)
    new = from_the_agent(as_anna, REWORDED)
    decided_while_embedding(monkeypatch, as_boss, new, decision)
    checking.run(new.pk)
    new.refresh_from_db()
    kept.refresh_from_db()
    if decision == "approve":  # approved, and said the same as an approved memory: merged there
        assert (new.review, new.duplicate_of_id, kept.confirmations) == ("approved", kept.pk, 2)
    else:  # a rejected memory confirms nothing
        assert (new.review, new.duplicate_of_id, new.assertion, kept.confirmations) == (
            "rejected",
            None,
            "asserted",
            1,
        )


def _waiting_on_a_lock() -> bool:
    with connections["default"].cursor() as cur:
        cur.execute("SELECT pg_stat_clear_snapshot()")  # else read once per transaction
        cur.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cur.fetchone()[0] > 0


@pytest.mark.django_db(transaction=True)
def test_a_decision_waits_for_the_checks_write_and_neither_is_lost(
    as_anna, as_boss, deferred_checks, sent, monkeypatch
):
    """A real second connection decides while the check holds the row: the decision waits for
    the check's write and then applies on top of it (the staged conflict, then its rejection)."""
    old = approved(as_boss, OLD)
    new = from_the_agent(as_anna, NEW)
    real_judge = dedup.judge
    errors: list[BaseException] = []

    def reviewer():
        try:
            services.review(as_boss, new.pk, build(MemoryReview, decision="reject", note="falsch"))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=reviewer)

    def judge(*args, **kwargs):
        thread.start()  # the check holds the row now: the reviewer's lock waits
        assert wait_for(_waiting_on_a_lock, timeout=10)
        return real_judge(*args, **kwargs)

    monkeypatch.setattr(dedup, "judge", judge)
    assert checking.run(new.pk) == "conflict"
    thread.join(10)
    assert not thread.is_alive() and errors == []
    new.refresh_from_db()
    old.refresh_from_db()
    assert list(new.revisions.values_list("action", flat=True)) == ["created", "conflict_staged", "rejected"]
    assert (new.review, new.conflicts_with_id, old.assertion) == ("rejected", old.pk, "asserted")


@pytest.mark.django_db(transaction=True)
def test_twelve_memories_decided_while_a_real_worker_checks_them_keep_their_decisions(
    as_anna, as_boss, deferred_checks, monkeypatch
):
    """The reported scenario through a real worker: twelve contradictions, each approved or
    rejected while the worker is checking (the first mid-embedding, the rest queued)."""
    go, inside = threading.Event(), threading.Event()
    real = similarity.embed

    def embed(text, subject):
        inside.set()
        assert go.wait(30)
        return real(text, subject)

    monkeypatch.setattr(similarity, "embed", embed)
    go.set()
    with in_process_worker():
        olds = [
            services.store(
                as_boss, build(MemoryStore, text=f"Az. {n} O 100/24: Die Frist beträgt 14 Tage.")
            ).memory
            for n in range(12)
        ]
        wait_for(lambda: not Memory.objects.filter(checking=True).exists(), timeout=60)
        go.clear()
        inside.clear()
        news = [
            services.store(
                as_anna,
                build(MemoryStore, text=f"Az. {n} O 100/24: Die Frist beträgt 21 Tage."),
                origin=Origin(surface="agent", run_id="1"),
            ).memory
            for n in range(12)
        ]
        assert inside.wait(30)  # the worker is in the middle of the first check
        decisions = {m.pk: ("approve", "reject")[i % 2] for i, m in enumerate(news)}
        for memory_id, decision in decisions.items():
            services.review(as_boss, memory_id, build(MemoryReview, decision=decision))
        go.set()
        wait_for(lambda: not Memory.objects.filter(checking=True).exists(), timeout=60)
    states = dict(Memory.objects.filter(pk__in=decisions).values_list("pk", "review"))
    assert states == {pk: STATE[d] for pk, d in decisions.items()}
    assert Memory.objects.filter(pk__in=[m.pk for m in olds], assertion="disputed").count() == 6
