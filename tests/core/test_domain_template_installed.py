"""The domain template (docs/domain_template, docs/adding-a-domain.md) installed and run: rendered
as `apps.notices` outside the repository, added to INSTALLED_APPS by a settings module of its own,
its migration made, and its own rendered tests run against a database of their own, exactly as the
doc tells a newcomer to do. A template that drifts from the core API fails here, not in a copy."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
APP = "notices"

SETTINGS = """
import apps

apps.__path__.append({apps_dir!r})  # the rendered app, outside the repository

from clapilot.settings import *  # noqa: E402,F403

INSTALLED_APPS = [*INSTALLED_APPS, "apps.{app}"]  # noqa: F405
"""


def _run(args, env, timeout):
    done = subprocess.run(
        args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{' '.join(map(str, args))}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done.stdout


# Three processes, one of them a test run that migrates a template database of its own: minutes.
@pytest.mark.timeout(1500)
def test_the_domain_template_installs_migrates_and_passes_its_own_tests(tmp_path):
    app_dir = tmp_path / "apps" / APP
    tests_dir = tmp_path / f"tests_{APP}"
    app_dir.mkdir(parents=True)
    tests_dir.mkdir()
    call_command("startapp", APP, str(app_dir), template=str(ROOT / "docs/domain_template"))
    call_command("startapp", APP, str(tests_dir), template=str(ROOT / "docs/domain_template_tests"))
    (tmp_path / "settings_with_template.py").write_text(
        SETTINGS.format(apps_dir=str(tmp_path / "apps"), app=APP)
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "settings_with_template",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
        # a test database of its own (its template database too: other INSTALLED_APPS)
        "CLAPILOT_TEST_DATABASE": f"{os.environ.get('CLAPILOT_TEST_DATABASE', 'test_clapilot')}_{APP}",
    }
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_XDIST_WORKER_COUNT", None)

    _run([sys.executable, "manage.py", "makemigrations", APP], env, timeout=300)
    assert (app_dir / "migrations" / "0001_initial.py").exists()
    _run([sys.executable, "manage.py", "check"], env, timeout=300)

    out = _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "tests.conftest",
            "--rootdir",
            str(ROOT),
            "-c",
            str(ROOT / "pyproject.toml"),
            str(tests_dir),
        ],
        env,
        timeout=900,
    )
    assert " passed" in out and "failed" not in out and "error" not in out.lower()
