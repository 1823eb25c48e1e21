"""Every model call passes the one gate: only the model layer's client talks to providers."""

from __future__ import annotations

import re
from pathlib import Path

APPS = Path(__file__).resolve().parents[2] / "apps"


def test_only_the_model_layer_client_imports_openai():
    pattern = re.compile(r"^\s*(?:import openai|from openai\b)", re.MULTILINE)
    users = sorted(
        str(path.relative_to(APPS.parent))
        for path in APPS.rglob("*.py")
        if "migrations" not in path.parts and pattern.search(path.read_text(encoding="utf-8"))
    )
    assert users == ["apps/llm/client.py"]
