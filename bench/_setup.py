"""Shared bench setup: Django on a throwaway copy of the schema (test_<db>), never the live data."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
# Scripts run as `python bench/x.py` put bench/ first on the path, where calendar.py would shadow
# the standard library's calendar module (celery imports it): bench/ goes last instead.
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != BENCH] + [str(BENCH)]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clapilot.settings")
# Never the test suite's database: bench_database() creates and drops this one.
os.environ.setdefault("CLAPILOT_TEST_DATABASE", "bench_clapilot")


@contextmanager
def bench_database():
    import django

    django.setup()
    from django.conf import settings

    if settings.EMBEDDED_DATABASE:  # the settings only describe it; the bench starts it
        from clapilot import embedded_db

        embedded_db.ensure_running()
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    # A copy of one migrated template all benches share (~1 s; tests/template_db.py) instead of
    # running every migration (~40 s) for each bench
    from tests.template_db import install

    install(connection, rebuild=False, template_base="bench")
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
        from clapilot import embedded_db

        embedded_db.stop_if_started_here()


def point_channel_layer_at_bench_database() -> None:
    """channels-postgres copied the database settings at import, before the bench database existed
    (data the bench prepares sends live events too)."""
    from channels import layers
    from django.conf import settings
    from django.db import connection

    config = settings.CHANNEL_LAYERS["default"].get("CONFIG", {})
    if "ENGINE" in config:
        config["NAME"] = connection.settings_dict["NAME"]
    layers.channel_layers.backends.clear()


def disconnect_everybody_else() -> None:
    """The bench database can only be dropped when no other session (daphne, a worker, the layer's
    pool) uses it."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [connection.settings_dict["NAME"]],
        )


def timed(fn, rounds: int) -> list[float]:
    """Milliseconds of `rounds` calls of fn, after three warm-up calls."""
    import time

    for _ in range(3):
        fn()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return samples


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def parse(parser, tiny: dict):
    """The bench's options; with `--tiny` those in `tiny` are replaced by a size that only proves
    the bench still runs (tests/core/test_benches.py runs every bench so, in the normal suite)."""
    parser.add_argument(
        "--tiny", action="store_true", help="a tiny size: proves the bench runs, measures nothing"
    )
    args = parser.parse_args()
    if args.tiny:
        for name, value in tiny.items():
            setattr(args, name, value)
    return args
