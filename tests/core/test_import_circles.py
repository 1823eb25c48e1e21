"""In-app import circles (bench/import_circles.py) may only become fewer: a service queues its
jobs by name (`apps.core.queue.enqueue`) instead of importing the jobs module that imports it."""

import importlib.util
from pathlib import Path

# 12 when counted first (5 of them through services -> jobs), 10 once jobs went by name, 8 with
# the clients page apart from the case page and documents' row helpers apart from the services,
# 7 with notes' get_note in reads.py, 4 with approvals' replay context, ToolContext.agent_pk and the
# Länder beside the office setting, 3 with agent outcomes by status values, knowledge switching apart
# from consent and the XLSX reader inside extraction.
MOST = 3


def _bench():
    path = Path(__file__).resolve().parents[2] / "bench" / "import_circles.py"
    spec = importlib.util.spec_from_file_location("import_circles", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_in_app_import_circles_do_not_grow():
    found = _bench().circles()
    shown = "\n".join(f"{app}: {', '.join(modules)}" for app, modules, _ in found)
    assert len(found) <= MOST, f"{len(found)} in-app import circles (at most {MOST}):\n{shown}"


def test_no_service_imports_its_jobs():
    through_jobs = [(app, modules) for app, modules, _ in _bench().circles() if "jobs" in modules]
    assert through_jobs == []
