"""A remote embeddings provider never sees the office's personal data: chunk text on ingest and
search queries pass the model layer's neutralization gate (`apps.llm.client.embed`). The fake
provider keeps the bytes it received; the test searches them for every real value."""

from __future__ import annotations

import json

import pytest

from apps.clients.models import Client
from apps.core.inputs import build
from apps.core.services import set_setting
from apps.knowledge import embeddings, search, services
from apps.knowledge.contracts import EmbeddingSettings
from tests.fakes.embeddings_server import FakeEmbeddings
from tests.knowledge.conftest import payload

pytestmark = pytest.mark.django_db

TEXT = (
    "Schreiben an Hubertus Wendeberg (h.wendeberg@example.de, Tel. 0221 4711 0815), "
    "StNr 21/815/08150, IBAN DE89 3704 0044 0532 0130 00.\n"
    "Sehr geehrter Herr Dr. Jost Kaltenbach,\nIhre Mieterin Frau Sabine Quirrenbach, geb. Ostertag, "
    "wohnhaft Lindenstraße 12, 50667 Köln, geb. am 03.04.1961, hat gekündigt. Quirrenbach zieht aus.\n"
    "Mit freundlichen Grüßen\n\nGerlinde Sauerbier"
)
SECRETS = [
    "Wendeberg",
    "h.wendeberg",
    "4711",
    "21/815/08150",
    "DE89",
    "Kaltenbach",
    "Quirrenbach",
    "Ostertag",
    "Lindenstra",
    "50667",
    "03.04.1961",
    "Sauerbier",
]


@pytest.fixture
def remote(as_boss):
    server = FakeEmbeddings().start()
    services.configure_embeddings(
        as_boss, build(EmbeddingSettings, provider="openai", base_url=server.base_url, model="fake-embed")
    )
    server.raw.clear()
    server.requests.clear()
    yield server
    server.stop()
    embeddings._query_cache.clear()


@pytest.fixture
def wendeberg(db):
    return Client.objects.create(
        name="Hubertus Wendeberg",
        kind="person",
        client_number="K-4711",
        email="h.wendeberg@example.de",
        tax_number="21/815/08150",
    )


def _received(server: FakeEmbeddings) -> str:
    raw = b"".join(server.raw)
    # the bytes as sent and their decoded JSON (the client may \\u-escape umlauts)
    return raw.decode() + json.dumps([json.loads(r) for r in server.raw], ensure_ascii=False)


def leaked(server: FakeEmbeddings) -> list[str]:
    received = _received(server).casefold()
    return [s for s in SECRETS if s.casefold() in received]


def test_ingest_and_query_reach_the_remote_provider_neutralized(index_now, as_boss, remote, wendeberg):
    file = index_now(1, payload(TEXT, title="Kündigung Wendeberg"))
    assert file.status == "indexed" and remote.raw
    hits = search.hybrid_search(as_boss, "Was schrieb Hubertus Wendeberg zu Frau Quirrenbach?", limit=5)
    assert [h.ref for h in hits] == ["document:1"]
    assert leaked(remote) == []
    # the placeholders are stable across requests: query and passage name the client alike
    passage, query = remote.inputs[0], remote.inputs[-1]
    token = next(w for w in query.split() if w.startswith("[MANDANT_"))
    assert token in passage
    # the stored chunk keeps the real text (local full-text search, what users read)
    assert "Wendeberg" in hits[0].text


def test_with_the_instance_switch_off_the_gate_lets_raw_text_through(index_now, as_boss, remote, wendeberg):
    """The control: the assertions above can fail."""
    set_setting("agent_neutralization", "off")
    index_now(1, payload(TEXT, title="Kündigung"))
    assert "Wendeberg" in leaked(remote) and "Kaltenbach" in leaked(remote)


def test_local_embeddings_need_no_gate(index_now, as_boss, wendeberg, monkeypatch):
    from apps.llm.neutralize import Gate

    def refuse(*a, **kw):  # pragma: no cover - reached only if the local path built a gate
        raise AssertionError("the local model must not be gated")

    monkeypatch.setattr(Gate, "for_embeddings", classmethod(refuse))
    file = index_now(1, payload(TEXT, title="Lokal"))
    assert file.status == "indexed"
    assert [h.ref for h in search.hybrid_search(as_boss, "Wendeberg Kündigung", limit=3)] == ["document:1"]


def test_a_document_below_a_marked_folder_is_neutralized_with_the_switch_off(index_now, remote, wendeberg):
    from tests.documents.factories import DocumentFactory, FolderFactory

    set_setting("agent_neutralization", "off")
    marked = FolderFactory(name="Erbrecht")
    marked.neutralize_always = True
    marked.save(update_fields=["neutralize_always"])
    inside = DocumentFactory(title="Kündigung", folder=FolderFactory(name="2024", parent=marked))
    index_now(inside.pk, payload(TEXT, title="Kündigung"))
    assert remote.raw and leaked(remote) == []
    remote.raw.clear()
    outside = DocumentFactory(title="Allgemein", folder=FolderFactory(name="Allgemein"))
    index_now(outside.pk, payload(TEXT, title="Allgemein"))
    assert "Kaltenbach" in leaked(remote)  # the control: unmarked, switch off → raw
