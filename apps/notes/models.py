"""Notizen: a folder tree, notes and their pages (sanitized rich text with attachment metadata)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import CreatedByService, owner_link
from apps.clients.models import case_link
from apps.core.db.model_fields import german_search, search_index, self_link, shared_or_owned
from apps.core.models import Timestamped, Versioned

FOLDER_NAME_MAX = 120
NOTE_NAME_MAX = 300
PAGE_TITLE_MAX = 300
PAGE_HTML_MAX = 500_000


class Visibility(models.TextChoices):
    SHARED = "shared", _("Shared with the office")
    PRIVATE = "private", _("Private")


class NoteFolder(Versioned, Timestamped):
    name = models.CharField(_("name"), max_length=FOLDER_NAME_MAX)
    parent = self_link(_("parent"), related_name="children", on_delete=models.CASCADE)
    visibility = models.CharField(
        _("visibility"), max_length=8, choices=Visibility.choices, default=Visibility.SHARED
    )
    # Private folders belong to their owner; shared ones record who created them (may be empty).
    owner = owner_link("note_folders")
    sort_order = models.IntegerField(_("order"), default=0)

    class Meta:
        verbose_name = _("note folder")
        verbose_name_plural = _("note folders")
        ordering = ["sort_order", "name", "id"]
        constraints = [
            shared_or_owned("notes_folder_private_has_owner"),
            models.CheckConstraint(condition=~Q(parent=models.F("id")), name="notes_folder_not_own_parent"),
        ]

    def __str__(self) -> str:
        return self.name


class Note(CreatedByService, Versioned, Timestamped):
    name = models.CharField(_("name"), max_length=NOTE_NAME_MAX)
    folder = models.ForeignKey(
        NoteFolder,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="notes",
        verbose_name=_("folder"),
    )
    visibility = models.CharField(
        _("visibility"), max_length=8, choices=Visibility.choices, default=Visibility.PRIVATE
    )
    owner = owner_link("notes")
    case = case_link("notes")
    search = german_search("name")
    # Names of whoever else sees a private note, set by `sharing.mark_shared_with` for display.
    shared_with: list[str]

    class Meta:
        verbose_name = _("note")
        verbose_name_plural = _("notes")
        ordering = ["-updated_at", "id"]
        indexes = [
            models.Index(fields=["folder", "-updated_at"], name="note_folder_recent"),
            models.Index(fields=["owner", "visibility"], name="note_owner_visibility"),
            search_index("note_search"),
        ]
        constraints = [
            shared_or_owned("notes_note_private_has_owner"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def folder_name(self) -> str | None:
        return self.folder.name if self.folder_id and self.folder else None

    @property
    def url(self) -> str:
        return reverse("notes:note", args=[self.pk])


class NotePage(Versioned, Timestamped):
    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="pages")
    title = models.CharField(_("title"), max_length=PAGE_TITLE_MAX, blank=True)
    ordinal = models.PositiveIntegerField(_("position"), default=0)
    # Always sanitized (services.sanitize_html) before it is stored: templates render it as is.
    html = models.TextField(_("content"), blank=True)
    # Plain text of `html`, for search and for agents that only need the words.
    text = models.TextField(_("text"), blank=True, editable=False)
    font_family = models.CharField(_("font"), max_length=60, blank=True)
    font_size = models.PositiveSmallIntegerField(_("font size (pt)"), null=True, blank=True)
    asset_items = models.JSONField(_("assets"), default=list, blank=True)
    audio_attachments = models.JSONField(_("audio attachments"), default=list, blank=True)
    search = german_search("title", "text")

    class Meta:
        verbose_name = _("note page")
        verbose_name_plural = _("note pages")
        ordering = ["ordinal", "id"]
        indexes = [
            models.Index(fields=["note", "ordinal"], name="notepage_note_order"),
            search_index("notepage_search"),
        ]

    def __str__(self) -> str:
        return self.title or f"#{self.pk}"
