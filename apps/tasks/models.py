"""Aufgaben: boards, workspace-global statuses, tasks with origin traceability, comments."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import CreatedByService, owner_link, user_link
from apps.clients.models import case_link, client_link
from apps.core.db.model_fields import german_search, search_index, shared_or_owned
from apps.core.models import Timestamped, Versioned
from apps.core.records import IdUrl

TITLE_MAX = 300
DESCRIPTION_MAX = 20_000
COMMENT_MAX = 10_000
task_url = IdUrl("tasks:detail")


class Board(models.Model):
    class Visibility(models.TextChoices):
        SHARED = "shared", _("Shared with everyone")
        RESTRICTED = "restricted", _("Shared with selected people")
        PRIVATE = "private", _("Private")

    name = models.CharField(_("name"), max_length=120)
    visibility = models.CharField(
        _("visibility"), max_length=16, choices=Visibility.choices, default=Visibility.SHARED
    )
    # Private and restricted boards have an owner; the owner always sees them.
    owner = owner_link("owned_boards")
    sort_order = models.IntegerField(_("order"), default=0)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("board")
        verbose_name_plural = _("boards")
        ordering = ["sort_order", "name", "id"]
        permissions = [("view_board_shared", "Can see a board shared with them")]
        constraints = [
            shared_or_owned("tasks_board_private_has_owner"),
        ]

    def __str__(self) -> str:
        return self.name


class TaskStatus(models.Model):
    """Workspace-global columns, ordered by sort_order. Every non-done category is unfinished."""

    class Category(models.TextChoices):
        OPEN = "open", _("Open")
        IN_PROGRESS = "in_progress", _("In progress")
        WAITING = "waiting", _("Waiting")
        DONE = "done", _("Done")

    key = models.SlugField(_("key"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=60)
    category = models.CharField(_("category"), max_length=16, choices=Category.choices)
    sort_order = models.IntegerField(_("order"), default=0)

    # The optional status whose follow-up date keeps its special meaning while it exists.
    WIEDERVORLAGE = "wiedervorlage"

    class Meta:
        verbose_name = _("task status")
        verbose_name_plural = _("task statuses")
        ordering = ["sort_order", "id"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_done(self) -> bool:
        return self.category == self.Category.DONE


class Task(CreatedByService, Versioned, Timestamped):
    class Priority(models.TextChoices):
        LOW = "low", _("Low")
        NORMAL = "normal", _("Normal")
        HIGH = "high", _("High")
        URGENT = "urgent", _("Urgent")

    class Source(models.TextChoices):
        MANUAL = "manual", _("Created by hand")
        AGENT = "agent", _("Copilot")
        TEAM_CHAT = "team_chat", _("Team chat")
        DOCUMENT = "document", _("Document")
        EMAIL = "email", _("E-mail")
        API = "api", _("API")

    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="tasks", verbose_name=_("board"))
    status = models.ForeignKey(
        TaskStatus, on_delete=models.PROTECT, related_name="tasks", verbose_name=_("status")
    )
    title = models.CharField(_("title"), max_length=TITLE_MAX)
    description = models.TextField(_("description"), blank=True)
    assignee = user_link(related_name="assigned_tasks")
    priority = models.CharField(
        _("priority"), max_length=8, choices=Priority.choices, default=Priority.NORMAL
    )
    due_date = models.DateField(_("due"), null=True, blank=True)
    # The Mandant the task is about. PROTECT: a client with tasks is retired (status inactive),
    # never deleted, so no task silently loses whom it concerns.
    client = client_link("tasks")
    # The Akte concerned (its client is the task's client); the case page lists it.
    case = case_link("tasks")
    follow_up_date = models.DateField(_("follow-up"), null=True, blank=True)
    position = models.IntegerField(_("position"), default=0)
    # Audit actor: the person who created it (a team-room member, not the room's service principal).
    erstellt_von = user_link(related_name="created_tasks")
    source_type = models.CharField(_("origin"), max_length=16, choices=Source.choices, default=Source.MANUAL)
    source_id = models.CharField(_("origin id"), max_length=200, null=True, blank=True)
    source_label = models.CharField(_("origin label"), max_length=200, blank=True)
    source_url = models.CharField(_("origin link"), max_length=500, blank=True)
    source_context_snapshot = models.JSONField(_("origin context"), default=dict, blank=True)
    # German full-text index over what people search for (title, description, origin label).
    search = german_search("title", "description", "source_label")

    class Meta:
        verbose_name = _("task")
        verbose_name_plural = _("tasks")
        ordering = ["position", "id"]
        indexes = [
            models.Index(fields=["board", "status", "position"], name="task_board_column"),
            models.Index(fields=["assignee", "due_date"], name="task_assignee_due"),
            models.Index(fields=["due_date"], name="task_due"),
            search_index("task_search"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["source_id"],
                condition=Q(source_type="team_chat"),
                name="tasks_team_chat_source_unique",
            ),
            models.CheckConstraint(
                condition=~Q(source_type="team_chat") | Q(source_id__isnull=False),
                name="tasks_team_chat_source_required",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def url(self) -> str:
        """The task's page (`TaskOut.url`)."""
        return task_url(self.pk)


class Comment(models.Model):
    class AuthorType(models.TextChoices):
        USER = "user", _("Person")
        AGENT = "agent", _("Copilot")
        SYSTEM = "system", _("System")

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="comments")
    author_type = models.CharField(max_length=8, choices=AuthorType.choices)
    author = user_link()
    author_name = models.CharField(max_length=150)
    body = models.TextField()
    body_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("comment")
        verbose_name_plural = _("comments")
        ordering = ["created_at", "id"]
        constraints = [
            # The same agent text on the same task is stored once (agents retry).
            models.UniqueConstraint(
                fields=["task", "body_hash"],
                condition=Q(author_type="agent"),
                name="tasks_agent_comment_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.author_name}: {self.body[:40]}"
