"""What the browser tests do again and again: call a tool as an API client, sign in through the form."""

import json
import urllib.request

from tests.factories import PASSWORD


def execute_tool(base_url: str, key: str, tool: str, arguments: dict) -> dict:
    """POST /api/v1/tools/execute with an API key, as an external client or the CLI would."""
    request = urllib.request.Request(
        f"{base_url}/api/v1/tools/execute",
        data=json.dumps({"tool": tool, "arguments": arguments}).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def log_in(page, base_url: str, email: str) -> None:
    """Sign in through the login form (the factories' shared password)."""
    for attempt in range(2):  # a first request on a busy machine can outlast one wait
        page.goto(f"{base_url}/accounts/login/")
        try:
            page.wait_for_selector("#id_username", timeout=15000)
            break
        except Exception:
            if attempt:
                raise
    page.fill("#id_username", email)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_load_state()
