"""Dispatcher overhead per call, and POST /api/v1/tools/execute throughput against a bare DRF view.

    .venv/bin/python bench/tool_dispatch.py [--calls 2000] [--requests 1000]

Targets (issue #3): under 1 ms added per call; the tool endpoint at least 80% of the bare view.
"""

import argparse
import json
import statistics
import time

from _setup import bench_database, parse, percentile


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=1000)
    opts = parse(parser, {"calls": 20, "requests": 20})
    with bench_database():
        run(opts)


def run(opts) -> None:
    from django.test import Client
    from django.urls import clear_url_caches, path
    from pydantic import Field
    from rest_framework.response import Response
    from rest_framework.views import APIView

    from apps.accounts.models import User
    from apps.accounts.principal import Principal
    from apps.apikeys import services as keys
    from apps.core import services as core_services
    from apps.core.services import set_setting
    from apps.tools.args import Args
    from apps.tools.context import ToolContext
    from apps.tools.dispatcher import dispatch
    from apps.tools.registry import tool
    from clapilot import urls

    class ReadArgs(Args):
        key: str = Field(max_length=100)

    @tool(name="bench_read_setting", family="bench", read_only=True, description="Read one instance setting.")
    def read_setting(ctx, args: ReadArgs):
        return {"key": args.key, "value": core_services.get_setting(args.key)}

    class BareView(APIView):
        required_scopes = ["tools:execute"]

        def post(self, request):
            body = json.loads(request.body)
            key = body["arguments"]["key"]
            return Response({"ok": True, "output": {"key": key, "value": core_services.get_setting(key)}})

    urls.urlpatterns.append(path("bench/bare", BareView.as_view()))
    clear_url_caches()

    admin = User.objects.create_superuser("bench@kanzlei.example", "x" * 20)
    set_setting("greeting", {"de": "Hallo"})
    ctx = ToolContext(principal=Principal.for_user(admin))

    # 1. per-call overhead
    for _ in range(200):  # warm-up: connections, caches, code paths
        dispatch("bench_read_setting", {"key": "greeting"}, ctx)
        core_services.get_setting("greeting")
    direct, dispatched = [], []
    for _ in range(opts.calls):
        t0 = time.perf_counter()
        core_services.get_setting("greeting")
        t1 = time.perf_counter()
        result = dispatch("bench_read_setting", {"key": "greeting"}, ctx)
        t2 = time.perf_counter()
        assert result.ok
        direct.append((t1 - t0) * 1000)
        dispatched.append((t2 - t1) * 1000)
    added = statistics.median(dispatched) - statistics.median(direct)
    print(
        f"service call direct      median {statistics.median(direct):.3f} ms  p99 {percentile(direct, 99):.3f} ms"
    )
    print(
        f"through dispatch()       median {statistics.median(dispatched):.3f} ms  p99 {percentile(dispatched, 99):.3f} ms"
    )
    print(f"dispatcher overhead      {added:.3f} ms per call (target < 1 ms)")

    # 2. HTTP throughput, same auth and middleware on both sides
    _, plaintext = keys.create_api_key(Principal.for_user(admin), name="bench", scopes=["tools:execute"])
    from django.conf import settings

    settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["api_key"] = "1000000/min"
    from rest_framework.settings import api_settings

    api_settings.reload()
    client = Client(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    body = json.dumps({"tool": "bench_read_setting", "arguments": {"key": "greeting"}})

    def rate(url: str) -> float:
        for _ in range(50):
            client.post(url, data=body, content_type="application/json")
        t0 = time.perf_counter()
        for _ in range(opts.requests):
            response = client.post(url, data=body, content_type="application/json")
            assert response.status_code == 200, response.content
        return opts.requests / (time.perf_counter() - t0)

    bare = rate("/bench/bare")
    tools = rate("/api/v1/tools/execute")
    print(f"bare DRF view            {bare:.0f} requests/s")
    print(f"/api/v1/tools/execute    {tools:.0f} requests/s  ({tools / bare:.0%} of bare, target >= 80%)")


if __name__ == "__main__":
    main()
