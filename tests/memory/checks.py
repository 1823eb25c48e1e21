"""The worker's check of a stored memory (`checking.run`) in tests: by default it runs at once
inside the storing transaction, as if the worker had picked the job up the moment it committed;
tests of the deferred path itself ask for `deferred_checks` and run (or await) the job."""

import pytest


@pytest.fixture(autouse=True)
def checked_at_once(monkeypatch):
    from apps.memory import checking, services

    real = services.enqueue

    def check_now(task_name, memory_id):
        assert task_name == services.CHECK_JOB
        return checking.run(memory_id)

    monkeypatch.setattr(services, "enqueue", check_now)
    return real


@pytest.fixture
def deferred_checks(monkeypatch, checked_at_once):
    """The real `enqueue`: the job is sent when the store's transaction commits."""
    from apps.memory import jobs, services

    monkeypatch.setattr(services, "enqueue", checked_at_once)
    return jobs
