"""Control-plane services of the knowledge store: cancelling jobs, re-indexing, switching the
embedding model, and the inventory the Wissen page and the badge show. Indexing itself is in
`indexing`, consent in `consent`, retrieval in `search` and `context`."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count, Q, QuerySet, Sum
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.errors import Forbidden
from apps.knowledge import embeddings, indexing
from apps.knowledge.contracts import EmbeddingSettings, IndexFilter
from apps.knowledge.errors import JobNotFound, KnowledgeNotFound
from apps.knowledge.models import IndexJob, KnowledgeFile
from apps.knowledge.visibility import listed_files

LIST_LIMIT = 200


def _require_admin(principal: Principal) -> None:
    if not principal.resource_scope.is_admin:
        raise Forbidden(_("Only administrators can do this."))


# --- inventory --------------------------------------------------------------------------------
def inventory(principal: Principal, *, limit: int = LIST_LIMIT) -> list[KnowledgeFile]:
    """What is indexed, newest first, with who indexed it (one query)."""
    return list(listed_files(principal).select_related("indexed_by").defer("text")[:limit])


def require_admin(principal: Principal) -> None:
    """Managing the store (consent switches, the embedding model, re-indexing) is for admins."""
    _require_admin(principal)


def indexed_page(
    principal: Principal, filters: IndexFilter | None = None, *, limit: int = 50, offset: int = 0
) -> tuple[list[KnowledgeFile], int]:
    """A page of what the principal may see in the index, newest first, and the total (two
    queries). Metadata only: the stored text is never loaded."""
    qs = listed_files(principal)
    if filters is not None and filters.status is not None:
        qs = qs.filter(status=filters.status)
    limit, offset = validation.page(limit, offset, LIST_LIMIT)
    total = qs.count()
    rows = list(
        qs.select_related("indexed_by").defer("text").order_by("-updated_at", "-id")[offset : offset + limit]
    )
    return rows, total


def counts(principal: Principal) -> dict:
    """What the principal may see in the index, counted by source type and by state (one query)."""
    by_type: dict[str, int] = {}
    by_status: dict[str, int] = {}
    rows = listed_files(principal).order_by().values("source_type", "status").annotate(n=Count("id"))
    for row in rows:
        by_type[row["source_type"]] = by_type.get(row["source_type"], 0) + row["n"]
        by_status[row["status"]] = by_status.get(row["status"], 0) + row["n"]
    return {"by_type": by_type, "by_status": by_status}


def totals(principal: Principal) -> dict:
    agg = listed_files(principal).aggregate(
        files=Count("id"),
        indexed=Count("id", filter=Q(status=KnowledgeFile.Status.INDEXED)),
        chunks=Sum("chunk_count"),
        bytes=Sum("bytes"),
    )
    return {k: v or 0 for k, v in agg.items()}


def visible_jobs(principal: Principal) -> QuerySet[IndexJob]:
    return IndexJob.objects.filter(file__in=listed_files(principal).values("id"))


def active_jobs(principal: Principal, *, limit: int = 50) -> list[IndexJob]:
    return list(
        visible_jobs(principal)
        .filter(status__in=IndexJob.ACTIVE)
        .select_related("file", "requested_by")
        .defer("file__text")
        .order_by("id")[:limit]
    )


def job_record(job: IndexJob) -> dict:
    return {
        "id": job.pk,
        "file": job.file.ref,
        "title": job.file.title,
        "status": job.status,
        "percent": job.percent,
        "done": job.done_chunks,
        "total": job.total_chunks,
        "cancel_requested": job.cancel_requested,
    }


def status_summary(principal: Principal) -> dict:
    """The floating badge's feed."""
    jobs = active_jobs(principal, limit=20)
    return {"active": len(jobs), "jobs": [job_record(j) for j in jobs]}


# --- control ----------------------------------------------------------------------------------
@transaction.atomic
def cancel_job(principal: Principal, job_id: int) -> IndexJob:
    """Cooperative: the worker stops at its next batch. Whoever sees the file may cancel."""
    try:
        job = visible_jobs(principal).select_for_update(of=("self",)).select_related("file").get(pk=job_id)
    except (IndexJob.DoesNotExist, TypeError, ValueError):
        raise JobNotFound(_("There is no such indexing job.")) from None
    if principal.resource_scope.shared_only:
        raise Forbidden(_("Only a person can cancel indexing."))
    if job.is_active and not job.cancel_requested:
        job.cancel_requested = True
        job.save(update_fields=["cancel_requested"])
    return job


@transaction.atomic
def reindex_file(principal: Principal, file_id: int) -> IndexJob:
    try:
        file = listed_files(principal).select_for_update().get(pk=file_id)
    except (KnowledgeFile.DoesNotExist, TypeError, ValueError):
        raise KnowledgeNotFound(_("There is no such indexed file.")) from None
    if file.status == KnowledgeFile.Status.EXCLUDED:
        raise Forbidden(_("Indexing is switched off for this folder."))
    file.status, file.error = KnowledgeFile.Status.PENDING, ""
    file.save(update_fields=["status", "error", "updated_at"])
    return indexing.schedule(file, requested_by=principal.audit_actor, reason="manual")


@transaction.atomic
def reindex_all(principal: Principal | None, *, reason: str = "model_change") -> int:
    """Queue every file that has text (e.g. after a model change). Search meanwhile only sees
    the files already done with the new model: slower recall, never mixed vectors."""
    if principal is not None:
        _require_admin(principal)
    actor = principal.audit_actor if principal is not None else None
    files = (
        KnowledgeFile.objects.select_for_update()
        .exclude(status=KnowledgeFile.Status.EXCLUDED)
        .exclude(text="")
        .defer("text")
    )
    count = 0
    for file in files:
        file.status, file.error = KnowledgeFile.Status.PENDING, ""
        file.save(update_fields=["status", "error", "updated_at"])
        indexing.schedule(file, requested_by=actor, reason=reason)
        count += 1
    return count


@transaction.atomic
def configure_embeddings(
    principal: Principal, data: EmbeddingSettings
) -> tuple[embeddings.EmbeddingConfig, int]:
    """Switch the embedding provider/model. The new one is probed first (reachable, right
    width); a changed model id re-indexes everything. `api_key=None` keeps the stored key."""
    _require_admin(principal)
    old = embeddings.load_config()
    if data.provider == embeddings.OPENAI:
        # Only this provider needs an address and a model (checked here, not in the contract).
        base_url = validation.text(data.base_url, "base_url", max_length=300, required=True)
        if not base_url.startswith(("http://", "https://")):
            raise validation.invalid("base_url", _("must start with http:// or https://"))
        new = embeddings.EmbeddingConfig(
            provider=data.provider,
            base_url=base_url,
            model=validation.text(data.model, "model", max_length=190, required=True),
            api_key=old.api_key if data.api_key is None else data.api_key,
            send_dimensions=data.send_dimensions,
        )
    else:
        new = embeddings.EmbeddingConfig()
    embeddings.embed_passages(["Probe"], new)  # raises EmbeddingError / EmbeddingDimensionMismatch
    embeddings.store_config(new)
    queued = reindex_all(principal, reason="model_change") if new.model_id != old.model_id else 0
    return new, queued


@transaction.atomic
def reconcile_model() -> int:
    """Queue files still indexed with another model than the configured one (e.g. the setting
    was edited directly), unless a job for them is already under way. Runs periodically."""
    model = embeddings.current_model()
    stale = (
        KnowledgeFile.objects.select_for_update(skip_locked=True)
        .filter(status=KnowledgeFile.Status.INDEXED)
        .exclude(embedding_model=model)
        .exclude(jobs__status__in=IndexJob.ACTIVE)
        .exclude(text="")
        .defer("text")
    )
    count = 0
    for file in stale:
        file.status = KnowledgeFile.Status.PENDING
        file.save(update_fields=["status", "updated_at"])
        indexing.schedule(file, reason="model_change")
        count += 1
    return count


def index_states(source_type: str, source_ids) -> dict[str, dict]:
    """Indexing state per source id, for other apps' pages and APIs (e.g. a document's detail):
    one query, metadata only; the caller has already checked that the sources are visible."""
    rows = KnowledgeFile.objects.filter(source_type=source_type, source_id__in=[str(i) for i in source_ids])
    return {
        row["source_id"]: {
            "status": row["status"],
            "label": str(KnowledgeFile.Status(row["status"]).label),
            "chunks": row["chunk_count"],
            "indexed_at": row["indexed_at"].isoformat() if row["indexed_at"] else None,
            "error": row["error"],
        }
        for row in rows.values("source_id", "status", "chunk_count", "indexed_at", "error")
    }
