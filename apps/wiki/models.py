"""Wiki: the office handbook. Pages keep every edit as a numbered revision; anything an agent
writes arrives as a proposal that a person accepts (a new revision) or rejects."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import service_link, user_link
from apps.core.db.model_fields import german_search, search_index
from apps.core.models import CreatedAt, Timestamped

SLUG_MAX = 120
TITLE_MAX = 200
BODY_MAX = 200_000
COMMENT_MAX = 500


class WikiPage(Timestamped):
    slug = models.SlugField(_("slug"), max_length=SLUG_MAX, unique=True)
    title = models.CharField(_("title"), max_length=TITLE_MAX)
    body = models.TextField(_("text (Markdown)"), blank=True)
    # German full-text index; the title weighs more than the body when ranking.
    search = german_search("title", "body", weighted=True)
    current_revision = models.ForeignKey(
        "WikiRevision",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("current revision"),
    )
    created_by = user_link(_("created by"))
    updated_by = user_link(_("updated by"))

    class Meta:
        verbose_name = _("wiki page")
        verbose_name_plural = _("wiki pages")
        ordering = ["title", "id"]
        indexes = [search_index("wiki_page_search")]

    def __str__(self) -> str:
        return self.title

    @property
    def url(self) -> str:
        return reverse("wiki:page", args=[self.slug])

    @property
    def revision_number(self) -> int:
        return self.current_revision.number if self.current_revision_id and self.current_revision else 0

    @property
    def version(self) -> int:
        """The page's version for optimistic checks (`apps.core.db.versioning`): its revision."""
        return self.revision_number


class WikiRevision(CreatedAt):
    page = models.ForeignKey(
        WikiPage, on_delete=models.CASCADE, related_name="revisions", verbose_name=_("wiki page")
    )
    number = models.PositiveIntegerField(_("number"))
    title = models.CharField(_("title"), max_length=TITLE_MAX)
    body = models.TextField(_("text (Markdown)"), blank=True)
    author = user_link(_("author"))
    comment = models.CharField(_("comment"), max_length=COMMENT_MAX, blank=True)
    # Set when the revision applies an accepted proposal.
    proposal = models.ForeignKey(
        "WikiProposal",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("accepted proposal"),
    )

    class Meta:
        verbose_name = _("wiki revision")
        verbose_name_plural = _("wiki revisions")
        ordering = ["page", "-number"]
        constraints = [models.UniqueConstraint(fields=["page", "number"], name="wiki_revision_number_once")]

    def __str__(self) -> str:
        return f"{self.page_id}#{self.number}"


class WikiProposal(CreatedAt):
    """A change suggested by an agent (or anyone through the tool): never applied until a person
    accepts it. `page` is empty for a proposed new page, which then names its `slug`."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        ACCEPTED = "accepted", _("Accepted")
        REJECTED = "rejected", _("Rejected")

    page = models.ForeignKey(
        WikiPage,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="proposals",
        verbose_name=_("wiki page"),
    )
    slug = models.SlugField(_("slug"), max_length=SLUG_MAX)
    # The revision the proposal was written against: accepting fails if the page moved on.
    base_revision = models.ForeignKey(
        WikiRevision,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("base revision"),
    )
    title = models.CharField(_("proposed title"), max_length=TITLE_MAX)
    body = models.TextField(_("proposed text"), blank=True)
    comment = models.CharField(_("why"), max_length=COMMENT_MAX, blank=True)
    proposed_by = user_link(_("proposed by"))
    proposed_by_service = service_link(_("proposed through"))
    surface = models.CharField(_("surface"), max_length=16, blank=True)
    run_id = models.CharField(_("agent run"), max_length=64, blank=True)
    session_id = models.CharField(_("chat session"), max_length=64, blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    reviewer = user_link(_("reviewer"))
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    reason = models.TextField(_("reason"), blank=True)

    class Meta:
        verbose_name = _("wiki proposal")
        verbose_name_plural = _("wiki proposals")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status="pending") | Q(decided_at__isnull=False),
                name="wiki_proposal_decided_has_time",
            )
        ]

    def __str__(self) -> str:
        return f"{self.slug}: {self.title}"

    @property
    def review_url(self) -> str:
        return reverse("wiki:proposals")

    @property
    def is_new_page(self) -> bool:
        return self.page_id is None
