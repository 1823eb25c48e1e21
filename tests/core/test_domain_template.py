"""docs/adding-a-domain.md's worked example stays true: the app template renders into valid,
lint-clean Python that uses the current core API. test_domain_template_installed.py installs it
and runs its own tests."""

import ast
import importlib
import importlib.util
import py_compile
import shutil
import subprocess
from pathlib import Path

from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]


def test_the_domain_template_renders_into_lint_clean_python(tmp_path):
    target = tmp_path / "sample"
    tests = tmp_path / "sample_tests"
    target.mkdir()
    tests.mkdir()
    call_command("startapp", "sample", str(target), template=str(ROOT / "docs/domain_template"))
    call_command("startapp", "sample", str(tests), template=str(ROOT / "docs/domain_template_tests"))
    files = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert "templates/sample/index.html" in files and "contracts.py" in files
    for path in [*target.rglob("*.py"), *tests.rglob("*.py")]:
        py_compile.compile(str(path), doraise=True)
    ruff = shutil.which("ruff") or str(ROOT / ".venv/bin/ruff")
    result = subprocess.run(
        [ruff, "check", "--config", str(ROOT / "pyproject.toml"), "--select", "F,E9,B", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout

    # Everything it imports from the project exists (the template follows the core API).
    for path in [*target.rglob("*.py"), *tests.rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("apps."):
                if node.module.startswith("apps.sample"):
                    continue
                module = importlib.import_module(node.module)
                for alias in node.names:
                    assert hasattr(module, alias.name) or importlib.util.find_spec(
                        f"{node.module}.{alias.name}"
                    ), f"{path.name}: {node.module}.{alias.name}"
