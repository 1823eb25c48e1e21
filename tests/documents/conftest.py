import pytest

from apps.accounts.principal import Principal
from tests.factories import ServicePrincipalFactory
from tests.inline_jobs import run_inline


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"


@pytest.fixture(autouse=True)
def extraction_runs_inline(request, monkeypatch):
    """Without a worker, the job runs right after commit in the test process (no broker message
    leaks into the shared queue). Tests using the `real_worker` fixture go through the broker."""
    if "real_worker" in request.fixturenames:
        return
    from apps.documents import processing, services

    run_inline(monkeypatch, services.EXTRACT_JOB, processing.run_extraction)


@pytest.fixture
def as_robot(db):
    return Principal.for_service(ServicePrincipalFactory(name="Posteingang"))


@pytest.fixture
def real_worker():
    """Marks a test whose extraction goes through the broker (the test run's private queue, see
    tests/conftest.py) to an in-process worker."""


@pytest.fixture(autouse=True)
def isolated_signals(monkeypatch):
    """The knowledge store listens to the documents signals; these tests check the documents side
    of the contract only (a test connects its own receiver where it needs one)."""
    from apps.documents.signals import document_removed, document_text_ready

    for signal in (document_text_ready, document_removed):
        monkeypatch.setattr(signal, "receivers", [])
        monkeypatch.setattr(signal, "sender_receivers_cache", {})


@pytest.fixture(autouse=True)
def workflow_runs_inline(request, monkeypatch):
    """The document workflow job, like the extraction, runs right after commit in the test process
    (without a model configured it ends `skipped`, cheaply)."""
    if "real_worker" in request.fixturenames:
        return
    from apps.documents import workflow

    run_inline(monkeypatch, workflow.WORKFLOW_JOB, workflow.run_workflow)


@pytest.fixture
def chat_model(db, fake_openai):
    """The instance's default chat model, served by the scripted OpenAI-compatible server."""
    from apps.core.services import set_setting
    from apps.llm.models import ModelConfig, Provider

    provider = Provider.objects.create(
        name="Fake", kind=Provider.Kind.OPENAI_COMPATIBLE, base_url=fake_openai.base_url, api_key="sk-test"
    )
    config = ModelConfig.objects.create(provider=provider, model_id="fake-model")
    set_setting("default_chat_model", config.pk)
    return config
