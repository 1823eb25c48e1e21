"""`clapilot`: the command-line surface of the tool framework, for scripts and coding agents.

It knows no tool by itself: every listing, description and argument check comes from the live
catalog of the server (`GET /api/v1/tools`), so a new tool is usable here the moment it is
deployed. Standard library only; configure with CLAPILOT_URL and CLAPILOT_API_KEY (a key with
the `tools:execute` scope).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request


class CliError(Exception):
    pass


class Client:
    def __init__(self, url: str, key: str, timeout: float = 60):
        if not url or not key:
            raise CliError("Set CLAPILOT_URL and CLAPILOT_API_KEY (or pass --url and --key).")
        self.url = url.rstrip("/")
        self.key = key
        self.timeout = timeout

    def _request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(  # noqa: S310  (the URL is the operator's own server)
            self.url + path,
            data=data,
            method=method,
            headers={"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            try:
                payload = json.loads(exc.read() or b"{}")
            except json.JSONDecodeError:
                payload = {"ok": False, "message": exc.reason}
            if exc.code in (401, 403) and "ok" not in payload:
                raise CliError(
                    f"The server refused the key ({exc.code}): {payload.get('detail', exc.reason)}"
                ) from None
            return exc.code, payload
        except urllib.error.URLError as exc:
            raise CliError(f"Cannot reach {self.url}: {exc.reason}") from None

    def catalog(self) -> list[dict]:
        code, payload = self._request("GET", "/api/v1/tools")
        if code != 200:
            raise CliError(f"Catalog request failed ({code}): {payload}")
        return payload["tools"]

    def execute(self, name: str, arguments: dict) -> tuple[int, dict]:
        return self._request("POST", "/api/v1/tools/execute", {"tool": name, "arguments": arguments})


def _find(tools: list[dict], name: str) -> dict:
    for t in tools:
        if t["name"] == name:
            return t
    close = [t["name"] for t in tools if name.split("_")[0] in t["name"]][:5]
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    raise CliError(f"No tool named {name!r}.{hint}")


def _coerce(value: str, schema: dict):
    """Turn a `--arg key=value` string into the JSON type the live schema asks for."""
    types = schema.get("type", "string")
    types = types if isinstance(types, list) else [types]
    if value == "null" and "null" in types:
        return None
    for kind in types:
        try:
            if kind == "integer":
                return int(value)
            if kind == "number":
                return float(value)
            if kind == "boolean" and value.lower() in ("true", "false"):
                return value.lower() == "true"
            if kind in ("array", "object"):
                return json.loads(value)
        except ValueError:
            continue
        if kind == "string":
            return value
    raise CliError(f"{value!r} does not fit the type {types}")


def build_arguments(tool: dict, raw_json: str | None, pairs: list[str]) -> dict:
    try:
        arguments = json.loads(raw_json) if raw_json else {}
    except json.JSONDecodeError as exc:
        raise CliError(f"--json is not valid JSON: {exc.msg}") from None
    if not isinstance(arguments, dict):
        raise CliError("--json must be a JSON object.")
    props = tool["parameters"].get("properties", {})
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise CliError(f"--arg needs key=value, got {pair!r}")
        if key not in props:
            raise CliError(f"{tool['name']} has no parameter {key!r}; it has: {', '.join(props) or 'none'}")
        arguments[key] = _coerce(value, props[key])
    return arguments


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="clapilot", description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("CLAPILOT_URL", ""))
    parser.add_argument("--key", default=os.environ.get("CLAPILOT_API_KEY", ""))
    sub = parser.add_subparsers(dest="group", required=True)
    tools = sub.add_parser("tools", help="list, describe and run tools").add_subparsers(
        dest="command", required=True
    )
    tools.add_parser("list", help="every tool you may call")
    describe = tools.add_parser("describe", help="a tool's description, parameters and output schema")
    describe.add_argument("name")
    run = tools.add_parser("run", help="execute a tool")
    run.add_argument("name")
    run.add_argument("--json", help="arguments as a JSON object")
    run.add_argument(
        "--arg", action="append", default=[], help="one argument as key=value (typed by the schema)"
    )
    args = parser.parse_args(argv)
    try:
        client = Client(args.url, args.key)
        catalog = client.catalog()
        if args.command == "list":
            for t in catalog:
                mode = "read " if t["read_only"] else "write"
                print(f"{t['family']:<16} {mode} {t['name']:<32} {t['description'].splitlines()[0]}")
            return 0
        tool = _find(catalog, args.name)
        if args.command == "describe":
            print(json.dumps(tool, indent=2, ensure_ascii=False))
            return 0
        _status, result = client.execute(tool["name"], build_arguments(tool, args.json, args.arg))
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0 if result.get("ok") else 1
    except CliError as exc:
        print(f"clapilot: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
