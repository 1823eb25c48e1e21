"""The worker's check of a stored memory (`checking.run`) in tests: by default it runs at once
inside the storing transaction, as if the worker had picked the job up the moment it committed;
tests of the deferred path itself ask for `deferred_checks` and run (or await) the job."""

import pytest


@pytest.fixture(autouse=True)
def checked_at_once(monkeypatch):
    from apps.memory import checking, jobs

    real = jobs.enqueue_check
    monkeypatch.setattr(jobs, "enqueue_check", checking.run)
    return real


@pytest.fixture
def deferred_checks(monkeypatch, checked_at_once):
    """The real `enqueue_check`: the job is sent when the store's transaction commits."""
    from apps.memory import jobs

    monkeypatch.setattr(jobs, "enqueue_check", checked_at_once)
    return jobs
