"""Learning: what the copilot picked up from chats, under people's control.

A `LearningObject` is a durable fact about the office or a proposed procedure, with the evidence
it came from (a chat run and the quoted span). Only `active` objects ever reach a model. Every
change of status, by a person or the curator, is one `LearningDecision` row (before → after) that
can be reverted. `LearningJobRun` is the visible log of the extraction and curator jobs (done,
skipped and why, invalid model output). `LearningSettings` holds the models an admin chose for
the two jobs.
"""

from __future__ import annotations

import hashlib
import re

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import user_link
from apps.agent.models import run_link
from apps.core.db.model_fields import german_search, search_index, self_link
from apps.core.models import Timestamped
from apps.llm.models import model_choice

TEXT_MAX = 1000
SUBJECT_MAX = 120
QUOTE_MAX = 500
NOTE_MAX = 1000


def canonical(text: str) -> str:
    """The form two texts are compared in: case, spacing and final punctuation do not count."""
    return re.sub(r"\s+", " ", (text or "").casefold()).strip().rstrip(".!;,").strip()


def content_hash(kind: str, text: str) -> str:
    return hashlib.sha256(f"{kind}\n{canonical(text)}".encode()).hexdigest()


class LearningObject(Timestamped):
    class Kind(models.TextChoices):
        DURABLE_FACT = "durable_fact", _("Durable fact")
        PROCEDURE_PROPOSAL = "procedure_proposal", _("Procedure proposal")

    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")  # approved or safely auto-activated: reaches the model
        STAGED = "staged", _("Staged")  # waits for a person
        REJECTED = "rejected", _("Rejected")  # by a person or the curator
        RETIRED = "retired", _("Retired")  # replaced by a newer fact or withdrawn

    class StagedReason(models.TextChoices):
        NONE = "", _("—")
        CORRECTION = "correction", _("Correction of an earlier fact")
        CONFLICT = "conflict", _("Conflicts with an active fact")
        UNSAFE = "unsafe", _("Possibly unsafe or instruction-like")
        PROCEDURE = "procedure", _("Procedures always need a person")
        UNCERTAIN = "uncertain", _("The extractor was not sure")

    class Origin(models.TextChoices):
        EXTRACTION = "extraction", _("Extracted from a chat")
        PERSON = "person", _("Entered by a person")

    kind = models.CharField(_("kind"), max_length=24, choices=Kind.choices)
    text = models.TextField(_("text"))
    # A short topic key ("office.opening_hours"): two facts on the same subject with different
    # text are a conflict, never a silent overwrite.
    subject = models.CharField(_("subject"), max_length=SUBJECT_MAX, blank=True)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.STAGED)
    staged_reason = models.CharField(
        _("why staged"), max_length=16, choices=StagedReason.choices, blank=True, default=""
    )
    conflicts_with = self_link(_("conflicts with"))
    origin = models.CharField(_("origin"), max_length=16, choices=Origin.choices, default=Origin.EXTRACTION)
    confidence = models.FloatField(_("confidence"), null=True, blank=True)
    content_hash = models.CharField(_("content hash"), max_length=64, db_index=True)
    # The curator looks only at objects never checked or changed since (`checked_hash`).
    checked_at = models.DateTimeField(_("checked by the curator"), null=True, blank=True)
    checked_hash = models.CharField(max_length=64, blank=True, default="")
    confirmations = models.PositiveIntegerField(_("times confirmed"), default=0)
    decided_by = user_link(_("decided by"))
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    search = german_search("subject", "text", weighted=True)

    class Meta:
        verbose_name = _("learning object")
        verbose_name_plural = _("learning objects")
        ordering = ["-updated_at", "-id"]
        permissions = [("review_learningobject", "Can review learning objects")]
        indexes = [
            search_index("learning_object_search"),
            models.Index(fields=["status", "kind"], name="learning_status_kind"),
            models.Index(fields=["subject"], name="learning_subject"),
        ]
        constraints = [
            # One active object per text: a repeated fact confirms the existing one.
            models.UniqueConstraint(
                fields=["content_hash"], condition=Q(status="active"), name="learning_active_once"
            ),
        ]

    def __str__(self) -> str:
        return self.text[:80]

    @property
    def ref(self) -> str:
        return f"learning:{self.pk}"

    @property
    def needs_check(self) -> bool:
        return self.checked_at is None or self.checked_hash != self.content_hash


class LearningEvidence(models.Model):
    """Where an object came from: the chat run and the span quoted from it (checked to occur)."""

    learning_object = models.ForeignKey(LearningObject, on_delete=models.CASCADE, related_name="evidence")
    run = run_link()
    quote = models.TextField(_("quoted span"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("evidence")
        verbose_name_plural = _("evidence")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.quote[:80]


class LearningDecision(models.Model):
    """One decision on an object, by a person or the curator: the audit trail, reversible."""

    class Decision(models.TextChoices):
        ACTIVATE = "activate", _("Activated automatically")
        STAGE = "stage", _("Staged for review")
        APPROVE = "approve", _("Approved")
        EDIT = "edit", _("Edited and approved")
        REJECT = "reject", _("Rejected")
        KEEP = "keep", _("Kept")
        RETIRE = "retire", _("Retired")
        CONFIRM = "confirm", _("Confirmed again")
        REVERT = "revert", _("Reverted an earlier decision")

    class Actor(models.TextChoices):
        PERSON = "person", _("Person")
        CURATOR = "curator", _("Curator")
        EXTRACTION = "extraction", _("Extraction")

    class Reason(models.TextChoices):
        NONE = "", _("—")
        FALSE = "false", _("False")
        NOISY = "noisy", _("Noisy")
        UNSAFE = "unsafe", _("Unsafe")
        DUPLICATE = "duplicate", _("Duplicate")
        TEMPORARY = "temporary", _("Temporary")
        LOW_VALUE = "low_value", _("Low value")
        UNCERTAIN = "uncertain", _("Uncertain")

    learning_object = models.ForeignKey(LearningObject, on_delete=models.CASCADE, related_name="decisions")
    decision = models.CharField(_("decision"), max_length=16, choices=Decision.choices)
    actor = models.CharField(_("decided by"), max_length=16, choices=Actor.choices)
    decided_by = user_link(_("person"))
    reason = models.CharField(_("reason"), max_length=16, choices=Reason.choices, blank=True, default="")
    note = models.TextField(_("note"), blank=True)
    confidence = models.FloatField(_("confidence"), null=True, blank=True)
    model_label = models.CharField(_("model used"), max_length=300, blank=True)
    # {"status": …, "text": …} of the object before and after the decision.
    before = models.JSONField(_("before"), default=dict)
    after = models.JSONField(_("after"), default=dict)
    reverted_by = user_link(_("reverted by"))
    reverted_at = models.DateTimeField(_("reverted"), null=True, blank=True)
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        verbose_name = _("learning decision")
        verbose_name_plural = _("learning decisions")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["actor", "reverted_at"], name="learning_decision_actor")]

    def __str__(self) -> str:
        return f"{self.get_decision_display()} #{self.learning_object_id}"


class LearningJobRun(models.Model):
    """What each extraction or curator job did, so an admin sees skips and failures."""

    class Job(models.TextChoices):
        EXTRACTION = "extraction", _("Extraction")
        CURATION = "curation", _("Curator")

    class Outcome(models.TextChoices):
        DONE = "done", _("Done")
        SKIPPED = "skipped", _("Skipped")
        INVALID_MODEL_OUTPUT = "invalid_model_output", _("Invalid model output")
        FAILED = "failed", _("Failed")

    job = models.CharField(_("job"), max_length=16, choices=Job.choices)
    outcome = models.CharField(_("outcome"), max_length=24, choices=Outcome.choices)
    reason = models.TextField(_("reason"), blank=True)
    run = run_link()
    model_label = models.CharField(_("model used"), max_length=300, blank=True)
    counts = models.JSONField(_("counts"), default=dict)
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        verbose_name = _("learning job run")
        verbose_name_plural = _("learning job runs")
        ordering = ["-created_at", "-id"]
        constraints = [
            # The extraction of one chat run is recorded once (a redelivered job does nothing).
            models.UniqueConstraint(
                fields=["run"], condition=Q(job="extraction"), name="learning_extraction_once_per_run"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_job_display()}: {self.get_outcome_display()}"


class LearningSettings(models.Model):
    """The models the admin chose for the two jobs (one row). No model: the job skips, visibly."""

    extraction_model = model_choice(
        _("extraction model"),
        _("Reads each finished chat and proposes facts and procedures. Empty: no extraction."),
    )
    curator_model = model_choice(
        _("curator model"),
        _("Reviews new and changed facts and removes only clear mistakes. Empty: no curation."),
    )
    enabled = models.BooleanField(
        _("learn from chats"), default=True, help_text=_("Off: no extraction after chat answers.")
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("learning settings")
        verbose_name_plural = _("learning settings")

    def __str__(self) -> str:
        return str(_("Learning settings"))

    @classmethod
    def current(cls) -> LearningSettings:
        row = cls.objects.select_related("extraction_model__provider", "curator_model__provider").first()
        return row if row is not None else cls.objects.get_or_create(pk=1)[0]
