"""The agent loop's own overhead per round, and the time to first streamed token added by the
Celery worker hop.

    .venv/bin/python bench/agent_loop.py [--runs 5] [--rounds 24] [--hops 15] [--clients 300]

1. Loop overhead: a zero-latency scripted model (the `openai` client answers in-process from
   pre-built stream chunks, no HTTP) asks for three read-only no-op tool calls per round; the
   run's wall time minus the time inside the tool framework's `execute_batch`, divided by its
   rounds, is what the loop itself costs per round: transcript rebuild, neutralization gate (on,
   with `--clients` clients in the records), stream parsing, message and event rows, the
   supervised tool phase. The framework's share is printed separately (its own bench is
   bench/tool_dispatch.py). RAG hooks are disabled for this part. Target (issue #5): < 20 ms.
2. Worker hop: the same question answered by a zero-latency HTTP model server, once with the
   loop called in-process and once through a real Celery worker (solo pool, the project's
   kombu-SQLAlchemy broker on the bench database, polling every 5 ms). The difference of the
   medians of "message committed → first token event stored" is the hop. Target: under 100 ms.
"""

import argparse
import statistics
import subprocess
import sys
import time
from types import SimpleNamespace

from _setup import (
    ROOT,
    bench_database,
    disconnect_everybody_else,
    parse,
    percentile,
    point_channel_layer_at_bench_database,
)

POLL = 0.005


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=24, help="tool rounds per run (plus the answer)")
    parser.add_argument("--hops", type=int, default=15)
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--skip-worker", action="store_true")
    opts = parse(parser, {"runs": 1, "rounds": 2, "hops": 2, "clients": 5})
    with bench_database():
        run(opts)


# --- a zero-latency model, in-process ---------------------------------------------------------
class _StubStream:
    def __init__(self, chunks):
        self._chunks = iter(chunks)

    def __iter__(self):
        return self._chunks

    def close(self):
        pass


class _StubClient:
    """Shaped like `openai.OpenAI` as `llm.client` uses it (a context manager with
    `chat.completions.create`); its completions come from the fake's script."""

    def __init__(self, fake, chunk_type):
        def create(**params):
            step = fake._next(params.get("model"))
            return _StubStream([chunk_type.model_validate(c) for c in fake._chunks(params, step)])

        self.chat = SimpleNamespace(completions=SimpleNamespace(create=create))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        pass


def run(opts) -> None:
    point_channel_layer_at_bench_database()
    try:
        measure(opts)
    finally:
        disconnect_everybody_else()


def measure(opts) -> None:
    from decimal import Decimal

    from openai.types.chat import ChatCompletionChunk
    from pydantic import Field

    from apps.accounts.models import User
    from apps.accounts.principal import Principal
    from apps.agent import runtime, services
    from apps.agent.contracts import MessageCreate
    from apps.agent.models import Run, RunEvent
    from apps.agent.runtime import run_agent
    from apps.clients.models import Client
    from apps.core.inputs import build
    from apps.core.services import set_setting
    from apps.llm import client as llm
    from apps.llm.models import ModelConfig, Provider
    from apps.tools.args import Args
    from apps.tools.registry import tool
    from tests.fakes.openai_server import FakeOpenAI

    class NoopArgs(Args):
        i: int = Field(ge=0, description="Call number.")

    @tool(name="bench_noop", family="agent", read_only=True, description="Does nothing.")
    def bench_noop(ctx, args: NoopArgs):
        return {"i": args.i}

    # No password (unusable): bench users never log in (force_login), and PBKDF2 cost ~0.5 CPU-s a user.
    user = User.objects.create_user("bench@kanzlei.example", None, full_name="Bea Benchmark")
    for i in range(20):
        User.objects.create_user(f"staff{i}@kanzlei.example", None, full_name=f"Stefan Mitarbeiter{i}")
    Client.objects.bulk_create(
        Client(
            name=f"Mandantin{i} Beispielname", kind="person", client_number=f"B{i}", email=f"m{i}@example.de"
        )
        for i in range(opts.clients)
    )
    fake = FakeOpenAI().start()
    provider = Provider.objects.create(
        name="Bench", kind="openai_compatible", base_url=fake.base_url, api_key="x"
    )
    model = ModelConfig.objects.create(
        provider=provider, model_id="bench-model", input_price_per_million=Decimal(1)
    )
    set_setting("default_chat_model", model.pk)
    principal = Principal.for_user(user)
    services_enqueue = services._enqueue

    # 1. loop overhead per round -----------------------------------------------------------------
    # RAG hooks (apps.knowledge) embed the question every round: their own cost, not the loop's.
    rag_hooks = runtime.context_providers
    runtime.context_providers = lambda: ()
    real_client_for = llm.client_for
    llm.client_for = lambda provider: _StubClient(fake, ChatCompletionChunk)
    services._enqueue = lambda run_id: None
    real_batch = runtime.execute_batch
    in_tools = [0.0]

    def timed_batch(calls, ctx):
        t = time.perf_counter()
        try:
            return real_batch(calls, ctx)
        finally:
            in_tools[0] += time.perf_counter() - t

    runtime.execute_batch = timed_batch
    per_round, per_round_tools = [], []
    try:
        for r in range(opts.runs + 1):  # the first run warms caches and connections
            fake.script.clear()
            n = 0
            for _ in range(opts.rounds):
                fake.tool_calls(*[("bench_noop", {"i": (n := n + 1)}) for _ in range(3)])
            fake.reply("Fertig: alle Prüfungen sind durchgelaufen.")
            session = services.create_session(principal)
            pending = services.post_user_message(
                principal,
                session.pk,
                build(MessageCreate, content="Prüfe bitte alles für Mandantin1 Beispielname", max_rounds=100),
            )
            in_tools[0] = 0.0
            t0 = time.perf_counter()
            done = run_agent(pending.pk)
            elapsed = time.perf_counter() - t0
            assert done.status == Run.Status.COMPLETED, (done.status, done.error_code)
            assert done.rounds == opts.rounds + 1
            if r:
                per_round.append((elapsed - in_tools[0]) * 1000 / done.rounds)
                per_round_tools.append(in_tools[0] * 1000 / done.rounds)
    finally:
        llm.client_for = real_client_for
        runtime.execute_batch = real_batch
        runtime.context_providers = rag_hooks
    print(
        f"loop overhead per round (3 tool calls, zero-latency model, {opts.clients} clients neutralized): "
        f"median {statistics.median(per_round):.2f} ms, max {max(per_round):.2f} ms "
        f"over {opts.runs} runs × {opts.rounds + 1} rounds  [target < 20 ms]"
    )
    print(
        "  + the tool framework's execute_batch (dispatcher, audit rows, parallel read-only threads "
        f"with their own connections): median {statistics.median(per_round_tools):.2f} ms per round"
    )

    if opts.skip_worker:
        fake.stop()
        return

    # 2. time to first token: in-process vs. through the worker ------------------------------------
    def ttft(via_worker: bool) -> float:
        fake.script.clear()
        fake.reply("Guten Tag, hier ist die Antwort.")
        session = services.create_session(principal)
        services._enqueue = services_enqueue if via_worker else (lambda run_id: None)
        run = services.post_user_message(principal, session.pk, build(MessageCreate, content="Hallo"))
        t0 = time.time()
        if not via_worker:
            run_agent(run.pk)
        deadline = time.monotonic() + 30
        while True:
            first = RunEvent.objects.filter(run=run, kind="token").order_by("seq").first()
            if first is not None:
                return (first.created_at.timestamp() - t0) * 1000
            if time.monotonic() > deadline:
                raise RuntimeError("no token within 30 s: is the worker running?")
            time.sleep(0.001)

    worker, _log = _start_worker()
    try:
        for _ in range(3):  # warm both paths
            ttft(False)
            ttft(True)
        direct = [ttft(False) for _ in range(opts.hops)]
        hopped = [ttft(True) for _ in range(opts.hops)]
    finally:
        worker.terminate()
        try:
            worker.wait(10)
        except subprocess.TimeoutExpired:
            worker.kill()
        fake.stop()
    added = statistics.median(hopped) - statistics.median(direct)
    print(
        f"time to first token in-process: median {statistics.median(direct):.1f} ms, "
        f"p95 {percentile(direct, 95):.1f} ms"
    )
    print(
        f"time to first token via worker: median {statistics.median(hopped):.1f} ms, "
        f"p95 {percentile(hopped, 95):.1f} ms"
    )
    print(f"added by the worker hop: {added:.1f} ms (median)  [target < 100 ms]")


def _start_worker():
    """A Celery worker on the bench database; this process publishes to the same broker."""
    from django.conf import settings
    from django.db import connection

    from clapilot import broker
    from clapilot.celery import app
    from tests.live import child_env, database_url

    # the product's broker transport (clapilot-sqla) on the bench database, as the worker's settings
    app.conf.broker_url = getattr(settings, "REDIS_URL", "") or broker.url_for(connection.settings_dict)
    # Jobs sent while the bench prepared its data opened a producer pool on the settings' broker
    # (the database named before the bench database existed): start over on the bench's one.
    app._pool = None
    app.amqp._producer_pool = None
    # kombu's SQLAlchemy transport hands transport options to create_engine(): set the poll
    # interval on the transport class instead.
    code = (
        "from kombu.transport import sqlalchemy;"
        f"sqlalchemy.Transport.polling_interval = {POLL};"
        "from clapilot.celery import app;"
        "app.worker_main(['worker', '--pool', 'solo', '-l', 'INFO', '--without-heartbeat',"
        " '--without-gossip', '--without-mingle'])"
    )
    log_path = ROOT / "var" / "bench_agent_worker.log"
    log_path.parent.mkdir(exist_ok=True)
    env = child_env({"DATABASE_URL": database_url(), "DEBUG": "0", "LOG_LEVEL": "WARNING"})
    out = log_path.open("w")
    process = subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 60
    while " ready." not in log_path.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("worker did not start: " + log_path.read_text()[-2000:])
        time.sleep(0.2)
    return process, log_path


if __name__ == "__main__":
    main()
