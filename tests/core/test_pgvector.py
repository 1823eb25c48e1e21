"""pgvector is installed by a migration and an HNSW cosine index really serves queries."""

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def test_hnsw_cosine_query_uses_the_index():
    with connection.cursor() as cur:
        cur.execute("CREATE TEMP TABLE probe (id int primary key, embedding vector(3))")
        cur.execute("CREATE INDEX ON probe USING hnsw (embedding vector_cosine_ops)")
        rows = [(1, "[1,0,0]"), (2, "[0,1,0]"), (3, "[0.9,0.1,0]"), (4, "[0,0,1]")]
        cur.executemany("INSERT INTO probe VALUES (%s, %s)", rows)
        cur.execute("ANALYZE probe")
        cur.execute("SET LOCAL enable_seqscan = off")
        query = "SELECT id FROM probe ORDER BY embedding <=> '[1,0.05,0]' LIMIT 2"
        cur.execute("EXPLAIN " + query)
        plan = "\n".join(row[0] for row in cur.fetchall())
        cur.execute(query)
        nearest = [row[0] for row in cur.fetchall()]
    assert "probe_embedding_idx" in plan
    assert nearest == [1, 3]
