"""What the approval step adds to a dispatch (#23): p50 of the same calls with the policy step and
without it, interleaved in one run, for a read-only tool and for a writing tool that runs.

    .venv/bin/python bench/approvals.py [--calls 3000]

The "with" side is the real step (apps.approvals.policy through `tools.approval`) with 40 policy
rows in the table (one of them allows the writing tool's operation, so its calls take the
"allowed by a policy" path and are marked approved); the "without" side is the dispatcher with no
contributor (`approval.step()` answering None), as before the approvals app. Target: < 0.3 ms
added per dispatch at p50. Also prints the decide() call alone.
"""

import argparse
import statistics
import time

from _setup import bench_database, parse, percentile


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=3000)
    opts = parse(parser, {"calls": 20})
    with bench_database():
        run(opts)


def run(opts) -> None:
    from pydantic import Field

    from apps.accounts.models import User
    from apps.accounts.principal import Principal
    from apps.approvals import policy
    from apps.approvals.models import Policy
    from apps.core import services as core_services
    from apps.core.services import set_setting
    from apps.tools import approval, registry
    from apps.tools.args import Args
    from apps.tools.context import ToolContext
    from apps.tools.dispatcher import dispatch
    from apps.tools.registry import tool

    class ReadArgs(Args):
        key: str = Field(max_length=100)

    class WriteArgs(Args):
        key: str = Field(max_length=100)
        value: str = Field(max_length=100)

    @tool(name="bench_read_setting", family="bench", read_only=True, description="Read one instance setting.")
    def read_setting(ctx, args: ReadArgs):
        return {"key": args.key, "value": core_services.get_setting(args.key)}

    @tool(
        name="bench_write_setting",
        family="bench",
        read_only=False,
        operation="update",
        description="Write one instance setting.",
    )
    def write_setting(ctx, args: WriteArgs):
        set_setting(args.key, args.value)
        return {"key": args.key}

    admin = User.objects.create_superuser("bench@kanzlei.example", "x" * 20)
    set_setting("greeting", "Hallo")
    names = [t.name for t in registry.all_tools() if not t.name.startswith("bench_")]
    for i, name in enumerate(names[:39]):
        Policy.objects.create(tool=name, specialist_id=i % 3 or None, forbidden=["delete"])
    Policy.objects.create(tool="bench_write_setting", allowed=["update"])
    policy.forget()
    ctx = ToolContext(principal=Principal.for_user(admin))
    calls = {
        "read-only tool": ("bench_read_setting", {"key": "greeting"}),
        "writing tool  ": ("bench_write_setting", {"key": "bench", "value": "x"}),
    }
    real_step = approval.step

    def without_step():
        return None

    def timed(name: str, args: dict, enabled: bool) -> float:
        approval.step = real_step if enabled else without_step
        t0 = time.perf_counter()
        result = dispatch(name, args, ctx)
        elapsed = (time.perf_counter() - t0) * 1000
        assert result.ok, result.as_dict()
        return elapsed

    try:
        for name, args in calls.values():  # warm-up: connections, caches, code paths
            for _ in range(200):
                timed(name, args, True)
                timed(name, args, False)
        print(f"{opts.calls} calls per side, interleaved; 40 policy rows")
        for label, (name, args) in calls.items():
            with_step, without = [], []
            for i in range(opts.calls):
                first = i % 2 == 0  # alternate which side goes first
                a = timed(name, args, first)
                b = timed(name, args, not first)
                (with_step if first else without).append(a)
                (without if first else with_step).append(b)
            p50_with, p50_without = statistics.median(with_step), statistics.median(without)
            # On a loaded machine the two medians drift apart by noise alone; the median of the
            # paired differences (each pair ran back to back) is the steadier figure.
            paired = statistics.median(a - b for a, b in zip(with_step, without, strict=True))
            print(
                f"{label} without step p50 {p50_without:.3f} ms (p95 {percentile(without, 95):.3f})   "
                f"with step p50 {p50_with:.3f} ms (p95 {percentile(with_step, 95):.3f})   "
                f"added {p50_with - p50_without:+.3f} ms, paired {paired:+.3f} ms (target < 0.3 ms)"
            )
    finally:
        approval.step = real_step

    t = registry.get("bench_write_setting")
    parsed = t.args_model.model_validate({"key": "bench", "value": "x"})
    durations = []
    for _ in range(opts.calls):
        t0 = time.perf_counter()
        policy.decide(t, parsed, ctx)
        durations.append((time.perf_counter() - t0) * 1000)
    print(f"decide() alone          p50 {statistics.median(durations) * 1000:.1f} µs")


if __name__ == "__main__":
    main()
