"""A real Celery worker in the test process (solo pool, in a thread) on the test run's private
queue (see `private_celery_queue` in tests/conftest.py), over the configured broker."""

from __future__ import annotations

import contextlib

from celery.contrib.testing.worker import start_worker

from clapilot.celery import app

# kombu's database transport polls for messages once a second and Celery's blocking loop waits up
# to 2 s per cycle, twice at shutdown: that was ~5 s per worker test spent sleeping. In tests the
# worker polls every 50 ms and checks for shutdown every 100 ms.
POLL_SECONDS = 0.05
CYCLE_SECONDS = 0.1


@contextlib.contextmanager
def in_process_worker(**options):
    from kombu.transport import virtual

    from clapilot import broker

    # kombu's loop, and the database broker's own (clapilot/broker.py), each with short cycles.
    patched: dict[type, dict] = {}
    for cls in (virtual.Transport, broker.Transport):
        drain = cls.__dict__["drain_events"]

        def short_drain(self, connection, timeout=None, drain=drain):
            return drain(
                self, connection, timeout=timeout if timeout is None else min(timeout, CYCLE_SECONDS)
            )

        patched[cls] = {"drain_events": short_drain}
    patched[virtual.Transport]["polling_interval"] = POLL_SECONDS
    saved = {cls: {name: cls.__dict__[name] for name in names} for cls, names in patched.items()}
    for cls, values in patched.items():
        for name, value in values.items():
            setattr(cls, name, value)
    try:
        with start_worker(
            app, pool="solo", perform_ping_check=False, shutdown_timeout=10, **options
        ) as worker:
            yield worker
    finally:
        for cls, values in saved.items():
            for name, value in values.items():
                setattr(cls, name, value)
