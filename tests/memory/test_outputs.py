"""The output models build the wire records themselves (`RowOutput.record`): byte for byte what the
hand-written `records.py` builders sent to tools, REST, live events and the export. The builders
below are those of `apps/memory/records.py` before they went, kept as the reference."""

import json

import pytest

from apps.accounts.contracts import person_ref
from apps.clients.models import Case
from apps.clients.records import case_ref, client_ref
from apps.core.records import attrs, iso
from apps.core.surfaces.api import dump
from apps.memory import contracts as c
from apps.memory.models import Memory, MemoryRevision, MemorySource, holder_key
from apps.memory.records import with_relations
from tests.factories import ClientFactory, UserFactory

pytestmark = pytest.mark.django_db


def subject_record(memory):
    return {
        "client": client_ref(memory.subject_client),
        "case": case_ref(memory.subject_case),
        "person": person_ref(memory.subject_person),
    }


def memory_record(memory):
    return {
        "id": memory.pk,
        **attrs(memory, "ref", "text", "kind", "scope"),
        "specialist": memory.specialist or None,
        "subject": subject_record(memory),
        "source": {"kind": memory.source_kind, "ref": memory.source_ref},
        **attrs(memory, "assertion", "review"),
        "valid_from": iso(memory.valid_from),
        "valid_until": iso(memory.valid_until),
        "confirmations": memory.confirmations,
        "conflicts_with": memory.conflicts_with_id,
        "checking": memory.checking,
        "duplicate_of": memory.duplicate_of_id,
        "created_by": person_ref(memory.created_by),
        "created_at": memory.created_at.isoformat(),
        "updated_at": memory.updated_at.isoformat(),
    }


def source_record(source):
    return {**attrs(source, "kind", "ref", "quote"), "added_at": source.created_at.isoformat()}


def revision_record(revision):
    return {
        "action": revision.action,
        "by": revision.actor_label,
        "at": revision.created_at.isoformat(),
        **attrs(revision, "before", "after", "note"),
    }


def same_bytes(a, b):
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


@pytest.fixture
def memories(anna):
    client = ClientFactory(name="Meier „&“ Söhne GmbH", client_number="10007")
    case = Case.objects.create(client=client, reference="2026/3", subject="Einspruch ESt")
    plain = Memory.objects.create(
        text="Die Kanzlei schließt freitags um 14 Uhr.",
        canonical_key="a",
        kind="fact",
        scope="shared",
        holder=holder_key(),
        source_kind="person",
        review="approved",
    )
    full = Memory.objects.create(
        text="Herr Meier will Post nur per E-Mail.\nAb März.",
        canonical_key="b",
        kind="preference",
        scope="personal",
        holder=holder_key(specialist="steuer"),
        specialist="steuer",
        subject_client=client,
        subject_case=case,
        subject_person=UserFactory(full_name="Ben Braun"),
        source_kind="chat_run",
        source_ref="run-17",
        created_by=anna,
        valid_from="2026-03-01T00:00:00+01:00",
        valid_until="2099-12-31T23:59:59.123456+00:00",
        confirmations=3,
        conflicts_with=plain,
        duplicate_of=plain,
        checking=True,
    )
    MemorySource.objects.create(memory=full, kind="chat_run", ref="run-17", quote="„nur per E-Mail“")
    MemoryRevision.objects.create(
        memory=full, action="edited", actor_label="Anna", before={"text": "x"}, after={"text": "y"}, note="ok"
    )
    return list(with_relations(Memory.objects.order_by("id")))


def test_memory_records_are_byte_for_byte_the_builder(memories):
    for memory in memories:
        assert same_bytes(c.MemoryOut.record(memory), memory_record(memory))
        assert same_bytes(
            dump(c.MemoryResult, {"memory": c.MemoryOut.of(memory)}),
            dump(c.MemoryResult, {"memory": memory_record(memory)}),
        )


def test_sources_and_revisions_are_byte_for_byte_the_builders(memories):
    full = memories[1]
    sources, revisions = list(full.sources.all()), list(full.revisions.all())
    assert sources and revisions
    for source in sources:
        assert same_bytes(c.MemorySourceOut.record(source), source_record(source))
    for revision in revisions:
        assert same_bytes(c.MemoryRevisionOut.record(revision), revision_record(revision))


def test_a_record_costs_no_query_beyond_the_rows(memories, django_assert_num_queries):
    with django_assert_num_queries(0):
        for memory in memories:
            c.MemoryOut.record(memory)
