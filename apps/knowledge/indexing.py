"""Indexing: a source hands over its payload (`index_source`), the worker chunks and embeds it
(`run_job`), a removed source is purged at once (`remove_source`).

The job is resumable and cancellable: chunks already stored with the same hash and model are
skipped, the cancel flag is checked between batches, progress is saved after every batch.
A batch is written under the file's row lock, so a job cancelled by a newer version of the text
can never write into the newer job's chunks.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core import validation
from apps.core.errors import InvalidInput
from apps.core.queue import enqueue
from apps.knowledge import chunking, consent, context, embeddings, events
from apps.knowledge.errors import EmbeddingError
from apps.knowledge.models import PATH_MAX, TITLE_MAX, Chunk, IndexJob, KnowledgeFile, Scope
from apps.llm import neutralize

logger = logging.getLogger(__name__)

BATCH_SIZE = 16
INDEX_JOB = "apps.knowledge.jobs.index_file"  # run_job, in the worker
SOURCE_TYPE_MAX = 32
MAX_TEXT_CHARS = 5_000_000


# --- validation -------------------------------------------------------------------------------
def _optional_id(value: Any, field: str) -> int | None:
    if value in (None, ""):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).isdigit():
        raise validation.invalid(field, _("must be a positive number"))
    return int(value)


def clean_payload(payload: Any) -> dict:
    """A validated copy of a source payload: `{"title", "text" or "sections": [{"title", "text"}],
    "scope": "personal" | "client" | "instance", "owner_id", "client_id", "path"}`."""
    if not isinstance(payload, dict):
        raise InvalidInput(_("The payload must be an object."))
    title = validation.text(payload.get("title"), "title", max_length=TITLE_MAX)
    scope = validation.choice(payload.get("scope"), "scope", Scope.values)
    owner_id = _optional_id(payload.get("owner_id"), "owner_id")
    client_id = _optional_id(payload.get("client_id"), "client_id")
    if scope == Scope.PERSONAL and owner_id is None:
        raise validation.invalid("owner_id", _("is required for personal content"))
    if scope == Scope.CLIENT and client_id is None:
        raise validation.invalid("client_id", _("is required for client content"))
    path = consent.normalize_path(payload.get("path"))
    if len(path) > PATH_MAX:
        raise validation.invalid("path", _("is too long"))
    sections = chunking.sections_of(payload)
    size = sum(len(t) for _title, t in sections)
    if size > MAX_TEXT_CHARS:
        raise validation.invalid("text", _("is too long to index"))
    text, outline = "", []
    for heading, body in sections:
        if text:
            text += "\n\n"
        outline.append({"title": heading, "start": len(text), "end": len(text) + len(body)})
        text += body
    digest = hashlib.sha256(text.encode()).hexdigest()
    return {
        "title": title,
        "scope": scope,
        "owner_id": owner_id,
        "client_id": client_id if scope == Scope.CLIENT else None,
        "path": path,
        "text": text,
        "sections": outline,
        "content_hash": digest,
    }


def _source_key(source_type: Any, source_id: Any) -> tuple[str, str]:
    source_type = validation.text(source_type, "source_type", max_length=SOURCE_TYPE_MAX, required=True)
    if not source_type.replace("_", "").isalnum():
        raise validation.invalid("source_type", _("may only contain letters, digits and _"))
    source_id = validation.text(str(source_id or ""), "source_id", max_length=100, required=True)
    return source_type, source_id


# --- sources in -------------------------------------------------------------------------------
@transaction.atomic
def index_source(
    source_type: str,
    source_id: Any,
    payload: Any,
    *,
    connection_key: str = "",
    requested_by=None,
    reason: str = "changed",
) -> KnowledgeFile:
    """Record a source's content and queue its indexing (after commit). Without consent for its
    path the file is `excluded` and nothing of its content is kept."""
    source_type, source_id = _source_key(source_type, source_id)
    data = clean_payload(payload)
    file = KnowledgeFile.objects.select_for_update().filter(
        source_type=source_type, source_id=source_id
    ).first() or KnowledgeFile(source_type=source_type, source_id=source_id)
    scope_changed = (file.scope, file.owner_id, file.client_id) != (
        data["scope"],
        data["owner_id"],
        data["client_id"],
    )
    same_title = file.title == data["title"]
    file.title, file.path, file.connection_key = data["title"], data["path"], connection_key
    file.scope, file.owner_id, file.client_id = data["scope"], data["owner_id"], data["client_id"]
    if not consent.is_enabled(file.path, connection_key):
        file.bytes = len(data["text"].encode())
        file.save()
        consent.purge_file(file)
        return file
    if file.pk and scope_changed:
        file.chunks.update(scope=file.scope, owner_id=file.owner_id, client_id=file.client_id)
    # A changed title changes every chunk's embedded text (and hash), so it re-embeds too.
    same_content = file.pk is not None and same_title and file.content_hash == data["content_hash"]
    in_flight = file.status in (KnowledgeFile.Status.PENDING, KnowledgeFile.Status.INDEXING)
    up_to_date = (
        file.status == KnowledgeFile.Status.INDEXED and file.embedding_model == embeddings.current_model()
    )
    unchanged = same_content and reason == "changed" and (in_flight or up_to_date)
    file.text, file.sections, file.content_hash = data["text"], data["sections"], data["content_hash"]
    file.bytes = len(data["text"].encode())
    if unchanged:
        file.save()
        return file
    file.status, file.error = KnowledgeFile.Status.PENDING, ""
    file.save()
    schedule(file, requested_by=requested_by, reason=reason)
    return file


def schedule(file: KnowledgeFile, *, requested_by=None, reason: str = "changed") -> IndexJob:
    """A new job for the file (older active ones are cancelled), sent to the worker on commit."""
    file.cancel_jobs()
    job = IndexJob.objects.create(file=file, requested_by=requested_by, reason=reason[:40])
    events.job_changed(job, file)
    # on commit; a deployment may route indexing (CPU-heavy) to its own queue
    enqueue(INDEX_JOB, job.pk, queue=getattr(settings, "CLAPILOT_KNOWLEDGE_QUEUE", None))
    return job


def reload_source(file: KnowledgeFile, *, requested_by=None) -> bool:
    """Queue a file again from its source (its text was purged); False when nothing can load it.
    The source's `load` is declared with its `ContextSource` (`knowledge.sources`)."""
    source = context.all_sources().get(file.source_type)
    payload = source.load(file.source_id) if source is not None and source.load is not None else None
    if payload is None:
        return False
    index_source(
        file.source_type,
        file.source_id,
        payload,
        connection_key=file.connection_key,
        requested_by=requested_by,
        reason="consent",
    )
    return True


@transaction.atomic
def remove_source(source_type: str, source_id: Any) -> int:
    """The source is gone: its file, chunks and jobs go with it, now. Returns chunks removed."""
    source_type, source_id = _source_key(source_type, source_id)
    file = (
        KnowledgeFile.objects.select_for_update().filter(source_type=source_type, source_id=source_id).first()
    )
    if file is None:
        return 0
    file.cancel_jobs()
    removed, _by_model = Chunk.objects.filter(file=file).delete()
    file.delete()
    return removed


# --- the worker side --------------------------------------------------------------------------
def _start(job_id: int) -> tuple[IndexJob, KnowledgeFile] | None:
    with transaction.atomic():
        job = IndexJob.objects.select_for_update().filter(pk=job_id).first()
        if job is None or not job.is_active:
            return None
        file = KnowledgeFile.objects.select_for_update().get(pk=job.file_id)
        if job.cancel_requested or file.status == KnowledgeFile.Status.EXCLUDED:
            _finish(job, file, IndexJob.Status.CANCELLED)
            return None
        job.status, job.started_at = IndexJob.Status.RUNNING, job.started_at or timezone.now()
        job.embedding_model = embeddings.current_model()
        job.save(update_fields=["status", "started_at", "embedding_model"])
        file.status = KnowledgeFile.Status.INDEXING
        file.save(update_fields=["status", "updated_at"])
        return job, file


def _finish(job: IndexJob, file: KnowledgeFile, status: str, error: str = "") -> None:
    job.status, job.error, job.finished_at = status, error[:500], timezone.now()
    job.save(update_fields=["status", "error", "finished_at", "done_chunks", "total_chunks"])
    superseded = IndexJob.objects.filter(file=file, status__in=IndexJob.ACTIVE).exclude(pk=job.pk).exists()
    if not superseded and file.status != KnowledgeFile.Status.EXCLUDED:
        file.status = {
            IndexJob.Status.DONE: KnowledgeFile.Status.INDEXED,
            IndexJob.Status.CANCELLED: KnowledgeFile.Status.CANCELLED,
            IndexJob.Status.FAILED: KnowledgeFile.Status.FAILED,
        }[status]
        file.error = error[:500]
        file.save(update_fields=["status", "error", "updated_at"])
    key = {"done": "knowledge.job.done", "failed": "knowledge.job.failed"}.get(
        status, "knowledge.job.cancelled"
    )
    events.job_changed(job, file, key)


def _still_wanted(job: IndexJob, file_id: int, content_hash: str) -> KnowledgeFile | None:
    """Lock the file row and re-read the flags; None when the job must stop writing."""
    file = KnowledgeFile.objects.select_for_update().filter(pk=file_id).first()
    fresh = IndexJob.objects.filter(pk=job.pk).values_list("cancel_requested", flat=True).first()
    if file is None or fresh is None or fresh or file.content_hash != content_hash:
        return None
    return file


def run_job(job_id: int, *, batch_size: int = BATCH_SIZE) -> IndexJob | None:
    """Index one file in batches. Safe to run twice (a redelivered message): the second run finds
    the job final, or skips every chunk already stored."""
    started = _start(job_id)
    if started is None:
        return IndexJob.objects.filter(pk=job_id).first()
    job, file = started
    config = embeddings.load_config()
    model = config.model_id
    try:
        return _index(job, file, config, model, batch_size)
    except EmbeddingError as exc:
        error = exc.message
    except Exception:
        logger.exception("indexing job %s failed", job.pk)
        error = _("Indexing failed unexpectedly.")
    with transaction.atomic():
        file = KnowledgeFile.objects.select_for_update().filter(pk=file.pk).first()
        if file is not None:
            _finish(job, file, IndexJob.Status.FAILED, error)
    return job


def _index(job: IndexJob, file: KnowledgeFile, config, model: str, batch_size: int) -> IndexJob:
    title, content_hash = file.title, file.content_hash
    payload = {
        "sections": [
            {"title": s.get("title", ""), "text": file.text[s.get("start", 0) : s.get("end", 0)]}
            for s in file.sections
        ]
        or [{"title": "", "text": file.text}]
    }
    specs, outline = chunking.chunk_payload(payload)
    # One gate for the job: a source marked "neutralize always" is neutralized whatever the
    # instance setting says (the owning app answers through `llm.sensitive_refs`).
    required = bool(neutralize.requires([f"{file.source_type}:{file.source_id}"]))
    gate = embeddings.passage_gate(config, required=required)
    wanted = {spec.ordinal: spec.content_hash(title) for spec in specs}
    with transaction.atomic():
        locked = _still_wanted(job, file.pk, content_hash)
        if locked is None:
            return _stop(job, file.pk)
        stale = Chunk.objects.filter(file_id=file.pk).exclude(embedding_model=model)
        stale.delete()
        have = dict(Chunk.objects.filter(file_id=file.pk).values_list("ordinal", "content_hash"))
        outdated = [o for o, h in have.items() if wanted.get(o) != h]
        Chunk.objects.filter(file_id=file.pk, ordinal__in=outdated).delete()
        todo = [spec for spec in specs if have.get(spec.ordinal) != wanted[spec.ordinal]]
        job.total_chunks, job.done_chunks = len(specs), len(specs) - len(todo)
        job.save(update_fields=["total_chunks", "done_chunks"])
        events.job_changed(job, locked)
    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        if IndexJob.objects.filter(pk=job.pk, cancel_requested=True).exists():
            return _stop(job, file.pk)
        vectors = embeddings.embed_passages([spec.embed_input(title) for spec in batch], config, gate=gate)
        with transaction.atomic():
            locked = _still_wanted(job, file.pk, content_hash)
            if locked is None:
                return _stop(job, file.pk)
            Chunk.objects.bulk_create(
                [
                    Chunk(
                        file_id=file.pk,
                        ordinal=spec.ordinal,
                        heading=spec.heading[:300],
                        text=spec.text,
                        content_hash=wanted[spec.ordinal],
                        embedding_model=model,
                        embedding=vector,
                        scope=locked.scope,
                        owner_id=locked.owner_id,
                        client_id=locked.client_id,
                        source_type=locked.source_type,
                    )
                    for spec, vector in zip(batch, vectors, strict=True)
                ]
            )
            job.done_chunks += len(batch)
            job.save(update_fields=["done_chunks"])
            events.job_changed(job, locked)
    with transaction.atomic():
        locked = _still_wanted(job, file.pk, content_hash)
        if locked is None:
            return _stop(job, file.pk)
        for section, entry in zip(locked.sections, outline, strict=False):
            section["chunks"] = entry["chunks"]
        locked.chunk_count, locked.embedding_model = len(specs), model
        locked.indexed_at, locked.indexed_by_id = timezone.now(), job.requested_by_id or locked.indexed_by_id
        locked.save(update_fields=["sections", "chunk_count", "embedding_model", "indexed_at", "indexed_by"])
        _finish(job, locked, IndexJob.Status.DONE)
    return job


def _stop(job: IndexJob, file_id: int) -> IndexJob:
    with transaction.atomic():
        file = KnowledgeFile.objects.select_for_update().filter(pk=file_id).first()
        if file is None:  # the source was deleted meanwhile: the job went with it
            return job
        job.refresh_from_db(fields=["status"])
        if job.is_active:
            _finish(job, file, IndexJob.Status.CANCELLED)
    return job
