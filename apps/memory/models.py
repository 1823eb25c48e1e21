"""Durable memory: what the copilot remembers of the office (shared) and of one person or one
specialist (personal), with people in control.

A memory is *returned to a model* only while it is approved, not retracted, checked (`checking`
false) and valid now (`visibility.usable`); everything else is kept for review, audit and export. Personal memory is
bound to exactly one holder (a user or a specialist id) and is never readable by another: the
`holder` column ("shared", "user:<id>", "specialist:<id>") is what every read filters on, and
what deduplication is unique over.

The embedding sits on the row, made by the knowledge store's embeddings client
(`apps.knowledge.embeddings`, same model tag and width as the store's chunks), so the visibility
filter (holder, review, validity) applies inside the same HNSW scan as the ranking.
"""

from __future__ import annotations

import datetime as dt

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from pgvector.django import VectorField

from apps.accounts.models import owner_link, user_link
from apps.clients.models import case_link, client_link
from apps.core.db.model_fields import german_search, search_index, self_link
from apps.core.models import Timestamped
from apps.knowledge.models import EMBEDDING_DIMENSIONS, embedding_index

# The documented limit of one memory's text (characters): a memory is a fact, a preference or
# a short procedure, not a document. Longer text is refused with `memory_too_large`.
TEXT_MAX = 2000
NOTE_MAX = 1000
QUOTE_MAX = 1000
SOURCE_REF_MAX = 100
SPECIALIST_MAX = 64
HOLDER_MAX = 80
SHARED_HOLDER = "shared"


class Scope(models.TextChoices):
    SHARED = "shared", _("Whole office")
    PERSONAL = "personal", _("Personal")


class Kind(models.TextChoices):
    FACT = "fact", _("Fact")
    PREFERENCE = "preference", _("Preference")
    PROCEDURE = "procedure", _("Procedure")
    NOTE = "note", _("Note")


class Assertion(models.TextChoices):
    ASSERTED = "asserted", _("Asserted")  # said once
    CONFIRMED = "confirmed", _("Confirmed")  # said again by another source, or vouched for by a reviewer
    DISPUTED = "disputed", _("Disputed")  # a contradicting fact waits for review
    RETRACTED = "retracted", _("Retracted")  # superseded or withdrawn: never returned to a model


class Review(models.TextChoices):
    PENDING = "pending", _("Waiting for review")
    APPROVED = "approved", _("Approved")
    REJECTED = "rejected", _("Rejected")


class SourceKind(models.TextChoices):
    CHAT_RUN = "chat_run", _("Chat")
    DOCUMENT = "document", _("Document")
    API_KEY = "api_key", _("API key")
    PERSON = "person", _("Person")


def holder_key(*, owner_id: int | None = None, specialist: str = "") -> str:
    """The partition a memory belongs to: the office, one user, or one specialist."""
    if specialist:
        return f"specialist:{specialist}"
    if owner_id is not None:
        return f"user:{owner_id}"
    return SHARED_HOLDER


class Memory(Timestamped):
    text = models.TextField(_("text"))
    # sha256 of the canonical text and the subject: the same fact about the same subject in the
    # same holder's memory is stored once (see `dedup.canonical_key`).
    canonical_key = models.CharField(_("canonical key"), max_length=64)
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices, default=Kind.FACT)
    scope = models.CharField(_("scope"), max_length=10, choices=Scope.choices, default=Scope.SHARED)
    owner = owner_link("memories", _("owner"))  # a person's personal memory goes with them
    specialist = models.CharField(_("specialist"), max_length=SPECIALIST_MAX, blank=True, default="")
    holder = models.CharField(_("holder"), max_length=HOLDER_MAX, default=SHARED_HOLDER, editable=False)

    # What the memory is about (all optional, at most one of each).
    subject_client = client_link("memories", on_delete=models.CASCADE)
    subject_case = case_link("memories", on_delete=models.CASCADE)
    subject_person = user_link(_("person"), related_name="memories_about", on_delete=models.CASCADE)

    # Where it first came from; every later confirmation adds a `MemorySource`.
    source_kind = models.CharField(_("source"), max_length=10, choices=SourceKind.choices)
    source_ref = models.CharField(_("source reference"), max_length=SOURCE_REF_MAX, blank=True)
    created_by = user_link(_("created by"))

    assertion = models.CharField(
        _("assertion"), max_length=10, choices=Assertion.choices, default=Assertion.ASSERTED
    )
    review = models.CharField(_("review"), max_length=10, choices=Review.choices, default=Review.PENDING)
    reviewed_by = user_link(_("reviewed by"))
    reviewed_at = models.DateTimeField(_("reviewed"), null=True, blank=True)
    valid_from = models.DateTimeField(_("valid from"), null=True, blank=True)
    valid_until = models.DateTimeField(_("valid until"), null=True, blank=True)

    # A staged conflict: this (pending) memory contradicts the approved one it points at. Why,
    # in words a reviewer can check: {"reason": "numbers"|"dates"|"negation", "similarity", …}.
    conflicts_with = self_link(_("contradicts"), related_name="conflicts")
    conflict = models.JSONField(_("conflict"), default=dict, blank=True)

    # Stored but not yet embedded and checked for near-duplicates and contradictions (the worker
    # does that right after the store commits, `checking.run`): never returned to a model meanwhile.
    checking = models.BooleanField(_("being checked"), default=False, db_default=False)
    # A near-duplicate found by that check: this memory was merged into the one it points at
    # (which was confirmed instead) and retracted.
    duplicate_of = self_link(_("merged into"), related_name="merged")

    # Whom the text names besides the links (`subjects.Subjects.anchors`: "n:schneider",
    # "number:10003", "az:2o123/24"): the near-duplicate and contradiction checks only compare
    # memories about the same subject. NULL: not read yet (the check reads the text then).
    subject_anchors = ArrayField(
        models.CharField(max_length=80), verbose_name=_("subjects named"), null=True, blank=True
    )

    confirmations = models.PositiveIntegerField(_("confirmations"), default=1)
    last_confirmed_at = models.DateTimeField(_("last confirmed"), null=True, blank=True)

    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    embedding_model = models.CharField(_("embedding model"), max_length=200, blank=True)
    search = german_search("text")

    class Meta:
        verbose_name = _("memory")
        verbose_name_plural = _("memories")
        ordering = ["-updated_at", "-id"]
        permissions = [("review_memory", _("Can review the office's memory"))]
        constraints = [
            models.CheckConstraint(
                condition=(Q(scope="shared", owner__isnull=True, specialist=""))
                | Q(scope="personal", owner__isnull=False, specialist="")
                | (Q(scope="personal", owner__isnull=True) & ~Q(specialist="")),
                name="memory_scope_has_one_holder",
            ),
            # One live memory per fact and holder: a rejected or retracted one may be said again.
            models.UniqueConstraint(
                fields=["holder", "canonical_key"],
                condition=~Q(review="rejected") & ~Q(assertion="retracted"),
                name="memory_canonical_once",
            ),
            models.CheckConstraint(
                condition=Q(valid_until__isnull=True)
                | Q(valid_from__isnull=True)
                | Q(valid_until__gt=models.F("valid_from")),
                name="memory_valid_range",
            ),
        ]
        indexes = [
            # Only approved memory is ever searched for a model: a partial index stays small.
            embedding_index("memory_embedding_approved", condition=Q(review="approved")),
            search_index("memory_search"),
            models.Index(fields=["holder", "review"], name="memory_holder_review"),
            models.Index(fields=["review", "-created_at"], name="memory_review_queue"),
            models.Index(fields=["subject_client"], name="memory_subject_client"),
            GinIndex(fields=["subject_anchors"], name="memory_subject_anchors"),
        ]

    def __str__(self) -> str:
        return self.text[:80]

    @property
    def ref(self) -> str:
        return f"memory:{self.pk}"

    @property
    def is_personal(self) -> bool:
        return self.scope == Scope.PERSONAL


class MemorySource(models.Model):
    """One source that stated the memory (the first, then every confirmation), with its evidence."""

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="sources")
    kind = models.CharField(_("source"), max_length=10, choices=SourceKind.choices)
    ref = models.CharField(_("reference"), max_length=SOURCE_REF_MAX, blank=True)
    quote = models.TextField(_("quoted evidence"), blank=True)
    added_by = user_link()
    created_at = models.DateTimeField(_("added"), auto_now_add=True)
    # Moved here when the memory it stated was merged into this one: an undone merge moves it back.
    moved_from = models.ForeignKey(
        Memory,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("merged from"),
    )

    class Meta:
        verbose_name = _("memory source")
        verbose_name_plural = _("memory sources")
        ordering = ["memory_id", "id"]

    def __str__(self) -> str:
        return f"{self.kind}:{self.ref}"

    @property
    def added_at(self) -> dt.datetime:  # the wire name (`MemorySourceOut`)
        return self.created_at


class MemoryRevision(models.Model):
    """The audit trail: who did what, when, the memory before → after, and the decision's note.
    Goes with its memory when a person has it forgotten (GDPR)."""

    class Action(models.TextChoices):
        CREATED = "created", _("Created")
        CONFIRMED = "confirmed", _("Confirmed by another source")
        CONFLICT_STAGED = "conflict_staged", _("Staged as a conflict")
        APPROVED = "approved", _("Approved")
        EDITED = "edited", _("Edited and approved")
        REJECTED = "rejected", _("Rejected")
        UPDATED = "updated", _("Changed")
        DISPUTED = "disputed", _("Disputed")
        RETRACTED = "retracted", _("Retracted")
        RESTORED = "restored", _("Restored")
        MERGED = "merged", _("Merged into a memory saying the same")
        UNMERGED = "unmerged", _("Merge undone")

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="revisions")
    action = models.CharField(_("action"), max_length=16, choices=Action.choices)
    actor = user_link(_("by"))
    actor_label = models.CharField(_("by"), max_length=300, blank=True)
    before = models.JSONField(_("before"), default=dict, blank=True)
    after = models.JSONField(_("after"), default=dict, blank=True)
    note = models.CharField(_("note"), max_length=NOTE_MAX, blank=True)
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        verbose_name = _("memory revision")
        verbose_name_plural = _("memory revisions")
        ordering = ["memory_id", "id"]
        indexes = [models.Index(fields=["memory", "id"], name="memory_revision_order")]

    def __str__(self) -> str:
        return f"{self.memory_id} {self.action}"

    # The wire names (`MemoryRevisionOut`): who, as recorded, and when.
    @property
    def by(self) -> str:
        return self.actor_label

    @property
    def at(self) -> dt.datetime:
        return self.created_at
