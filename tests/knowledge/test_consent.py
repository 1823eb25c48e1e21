"""Consent: longest prefix wins, subfolders override, a connection's gate; revoking purges at once
and cancels jobs; only admins switch shared folders."""

import dataclasses

import pytest

from apps.core.errors import Forbidden, InvalidInput
from apps.core.inputs import build
from apps.knowledge import consent, context, indexing, switching
from apps.knowledge.contracts import ConsentSwitch
from apps.knowledge.models import Chunk, ConsentRule, IndexJob, KnowledgeFile
from tests.knowledge.conftest import payload

pytestmark = pytest.mark.django_db


def rule(prefix, enabled, key=""):
    return ConsentRule(path_prefix=prefix, enabled=enabled, connection_key=key)


def test_longest_prefix_wins_and_subfolders_override():
    resolver = consent.Resolver(
        [rule("/Kanzlei", False), rule("/Kanzlei/Öffentlich", True), rule("/Kanzlei/Öffentlich/Alt", False)]
    )
    assert resolver.enabled("/Mandanten/Meier")  # no rule: enabled
    assert not resolver.enabled("/Kanzlei/Personal")
    assert resolver.enabled("/Kanzlei/Öffentlich/Handbuch")
    assert not resolver.enabled("/Kanzlei/Öffentlich/Alt/2019")
    assert resolver.enabled("/Kanzleiarchiv")  # segment-wise, not a string prefix


def test_a_connection_gate_beats_its_folders():
    resolver = consent.Resolver([rule("", False, "mail:anna"), rule("/Posteingang", True, "mail:anna")])
    assert not resolver.enabled("/Posteingang", "mail:anna")
    assert resolver.enabled("/Posteingang", "mail:ben")
    assert resolver.enabled("/Posteingang")  # local documents are not that connection


def test_path_normalization():
    assert consent.normalize_path("Kanzlei//Steuern/") == "/Kanzlei/Steuern"
    assert consent.normalize_path("/") == "" and consent.normalize_path(None) == ""
    with pytest.raises(InvalidInput):
        consent.normalize_path("/Kanzlei/../Privat")


def test_revoking_purges_the_subtree_synchronously_and_cancels_jobs(index_now, as_boss):
    inside = index_now(1, payload("Gehaltsliste der Kanzlei 2026.", path="/Kanzlei/Personal"))
    deeper = index_now(2, payload("Arbeitsvertrag Muster.", path="/Kanzlei/Personal/Verträge"))
    outside = index_now(3, payload("Kanzleihandbuch Urlaub.", path="/Kanzlei/Handbuch"))
    running = indexing.index_source("document", 4, payload("Noch in Arbeit.", path="/Kanzlei/Personal"))
    job = IndexJob.objects.get(file=running)
    rule_, changed = switching.set_consent(
        as_boss, build(ConsentSwitch, path="/Kanzlei/Personal/", enabled=False)
    )
    assert rule_.path_prefix == "/Kanzlei/Personal" and changed == 3
    for file in (inside, deeper, running):
        file.refresh_from_db()
        assert file.status == KnowledgeFile.Status.EXCLUDED and file.text == "" and file.chunk_count == 0
    assert not Chunk.objects.filter(file__in=[inside, deeper, running]).exists()
    assert Chunk.objects.filter(file=outside).exists()
    job.refresh_from_db()
    assert job.cancel_requested
    indexing.run_job(job.pk)
    job.refresh_from_db()
    assert job.status == "cancelled" and not Chunk.objects.filter(file=running).exists()


def test_content_under_a_disabled_path_is_excluded_and_a_subfolder_can_opt_in(index_now, as_boss):
    switching.set_consent(as_boss, build(ConsentSwitch, path="/Archiv", enabled=False))
    excluded = index_now(5, payload("Alte Akte.", path="/Archiv/2010"))
    assert excluded.status == "excluded" and excluded.text == "" and not excluded.jobs.exists()
    switching.set_consent(as_boss, build(ConsentSwitch, path="/Archiv/2025", enabled=True))
    allowed = index_now(6, payload("Neue Akte.", path="/Archiv/2025"))
    assert allowed.status == "indexed" and allowed.chunk_count == 1


def test_re_enabling_reloads_from_the_source(index_now, as_boss, monkeypatch):
    file = index_now(7, payload("Vertragsentwurf Meier.", path="/Entwürfe"))
    switching.set_consent(as_boss, build(ConsentSwitch, path="/Entwürfe", enabled=False))
    declared = context.all_sources()
    reload = dataclasses.replace(
        declared["document"], load=lambda source_id: payload("Vertragsentwurf Meier.", path="/Entwürfe")
    )
    monkeypatch.setattr(context, "all_sources", lambda: {**declared, "document": reload})
    _rule, changed = switching.set_consent(as_boss, build(ConsentSwitch, path="/Entwürfe", enabled=True))
    file.refresh_from_db()
    assert changed == 1 and file.status == "pending" and file.jobs.filter(status="queued").exists()


def test_clearing_a_rule_applies_the_inherited_consent(index_now, as_boss):
    switching.set_consent(as_boss, build(ConsentSwitch, path="/Kanzlei", enabled=False))
    opt_in, _ = switching.set_consent(as_boss, build(ConsentSwitch, path="/Kanzlei/Frei", enabled=True))
    file = index_now(8, payload("Freigegebene Notiz.", path="/Kanzlei/Frei"))
    assert file.status == "indexed"
    assert switching.clear_rule(as_boss, opt_in.pk) == 1
    file.refresh_from_db()
    assert file.status == "excluded" and not Chunk.objects.filter(file=file).exists()


def test_staff_switch_only_their_own_personal_folders(index_now, anna, as_anna, as_ben, as_robot):
    index_now(9, payload("Privat.", scope="personal", owner_id=anna.pk, path="/Persönlich/anna"))
    index_now(10, payload("Geteilt.", path="/Kanzlei"))
    switching.set_consent(as_anna, build(ConsentSwitch, path="/Persönlich/anna", enabled=False))
    for principal, path in [
        (as_ben, "/Persönlich/anna"),
        (as_anna, "/Kanzlei"),
        (as_anna, ""),
        (as_robot, "/x"),
    ]:
        with pytest.raises(Forbidden):
            switching.set_consent(principal, build(ConsentSwitch, path=path, enabled=False))
    with pytest.raises(Forbidden):
        switching.stop_connection_jobs(as_anna, "mail:anna")
    assert ConsentRule.objects.count() == 1


def test_stop_connection_jobs(as_boss):
    file = indexing.index_source("mail", "m1", payload("Mail von Meier."), connection_key="mail:anna")
    other = indexing.index_source("document", 11, payload("Lokal."))
    assert switching.stop_connection_jobs(as_boss, "mail:anna") == 1
    assert (
        IndexJob.objects.get(file=file).cancel_requested
        and not IndexJob.objects.get(file=other).cancel_requested
    )
