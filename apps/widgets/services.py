"""The only place that changes widgets. A widget belongs to one person: every read and write is
scoped to the principal's own user, and another person's widget answers exactly like a missing
one (`widget_not_found`). Service principals have no dashboard (`NoUserContext`)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.ordering import next_position
from apps.core.saving import save_unique
from apps.core.versioning import Versioned
from apps.widgets import events
from apps.widgets.definitions import check_data, infer_definition, validate_definition
from apps.widgets.errors import NoUserContext, SlugTaken, WidgetNotFound
from apps.widgets.models import DESCRIPTION_MAX, SLUG_MAX, TITLE_MAX, Widget
from apps.widgets.records import widget_record

MAX_LIST = 200
EDITABLE = frozenset({"title", "description", "definition", "show_on_dashboard", "position"})
WIDGET_VERSION = Versioned("widget", widget_record, gettext_lazy("The widget was changed in the meantime."))
_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


def _owner(principal: Principal):
    if principal.user is None:
        raise NoUserContext(_("Widgets belong to a person's dashboard; this caller has none."))
    return principal.user


def visible_widgets(principal: Principal) -> QuerySet[Widget]:
    return Widget.objects.filter(owner=_owner(principal))


def list_widgets(
    principal: Principal, *, dashboard_only: bool = False, query: str | None = None
) -> list[Widget]:
    qs = visible_widgets(principal)
    if dashboard_only:
        qs = qs.filter(show_on_dashboard=True)
    if query:
        query = validation.text(query, "query", max_length=200)
        qs = qs.filter(Q(title__icontains=query) | Q(description__icontains=query) | Q(slug__icontains=query))
    return list(qs.select_related("owner")[:MAX_LIST])


def dashboard_widgets(user) -> list[Widget]:
    """The cards of one person's dashboard, in their order (one query)."""
    return list(Widget.objects.filter(owner=user, show_on_dashboard=True).select_related("owner")[:MAX_LIST])


def get_widget(
    principal: Principal, *, widget_id: Any = None, slug: Any = None, for_update: bool = False
) -> Widget:
    qs = visible_widgets(principal).select_related("owner")
    if for_update:
        qs = qs.select_for_update(of=("self",))
    try:
        if widget_id is not None:
            return qs.get(pk=int(widget_id))
        return qs.get(slug=str(slug))
    except (Widget.DoesNotExist, TypeError, ValueError):
        ref = widget_id if widget_id is not None else slug
        raise WidgetNotFound(_("There is no widget “%(ref)s”.") % {"ref": ref}) from None


def _slug(owner, requested: str | None, title: str) -> str:
    """An explicit slug must be free; one derived from the title gets a number if needed."""
    base = slugify((requested or title).translate(_GERMAN))[: SLUG_MAX - 4].strip("-") or "widget"
    taken = set(Widget.objects.filter(owner=owner, slug__startswith=base).values_list("slug", flat=True))
    if requested:
        if base in taken:
            raise SlugTaken.field("slug", _("you already have a widget “%(slug)s”") % {"slug": base})
        return base
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    return slug


def _layout(definition: Any, data: Any, title: str) -> tuple[dict, bool]:
    if definition is not None:
        return validate_definition(definition), False
    if data is None:
        raise validation.invalid(
            "widget_definition",
            _("send a widget_definition or latest_data to infer it from"),
        )
    return infer_definition(data, title), True


@transaction.atomic
def create_widget(
    principal: Principal,
    *,
    title: str,
    description: str = "",
    definition: dict | None = None,
    data: Any = None,
    show_on_dashboard: bool = True,
    slug: str | None = None,
) -> Widget:
    owner = _owner(principal)
    title = validation.text(title, "title", max_length=TITLE_MAX, required=True)
    data = check_data(data) if data is not None else None
    definition, inferred = _layout(definition, data, title)
    widget = Widget(
        owner=owner,
        slug=_slug(owner, validation.text(slug, "slug", max_length=SLUG_MAX) or None, title),
        title=title,
        description=validation.text(description, "description", max_length=DESCRIPTION_MAX),
        type=definition["type"],
        definition=definition,
        definition_inferred=inferred,
        data=data,
        data_updated_at=timezone.now() if data is not None else None,
        show_on_dashboard=bool(show_on_dashboard),
        position=next_position(Widget.objects.filter(owner=owner)),
    )
    save_unique(widget, lambda: SlugTaken(_("This widget address was just taken; please try again.")))
    events.widget_changed(widget, "widgets.widget.created")
    return widget


@transaction.atomic
def update_widget(
    principal: Principal,
    changes: dict[str, Any],
    *,
    widget_id: Any = None,
    slug: Any = None,
    expected_version: int | None = None,
) -> Widget:
    """Partial update of name, description, definition, dashboard visibility and position. A new
    definition replaces the inferred layout for good."""
    validation.only_fields(changes, EDITABLE)
    widget = get_widget(principal, widget_id=widget_id, slug=slug, for_update=True)
    WIDGET_VERSION.check(widget, expected_version)
    if "title" in changes:
        widget.title = validation.text(changes["title"], "title", max_length=TITLE_MAX, required=True)
    if "description" in changes:
        widget.description = validation.text(
            changes["description"], "description", max_length=DESCRIPTION_MAX
        )
    if "definition" in changes:
        widget.definition = validate_definition(changes["definition"])
        widget.type, widget.definition_inferred = widget.definition["type"], False
    if "show_on_dashboard" in changes:
        widget.show_on_dashboard = bool(changes["show_on_dashboard"])
    if "position" in changes:
        try:
            widget.position = max(0, int(changes["position"]))
        except (TypeError, ValueError):
            raise validation.invalid("position", _("must be a number")) from None
    widget.version += 1
    widget.save()
    events.widget_changed(widget, "widgets.widget.updated")
    return widget


@transaction.atomic
def update_data(
    principal: Principal,
    data: Any,
    *,
    widget_id: Any = None,
    slug: Any = None,
    expected_version: int | None = None,
) -> Widget:
    """Replace the latest data. A layout that was inferred follows the data (a list that gains
    columns becomes a table); an explicit definition stays as it is. Empty data never downgrades."""
    widget = get_widget(principal, widget_id=widget_id, slug=slug, for_update=True)
    WIDGET_VERSION.check(widget, expected_version)
    data = check_data(data)
    if widget.definition_inferred and data not in (None, "", [], {}):
        widget.definition = infer_definition(data, widget.title)
        widget.type = widget.definition["type"]
    widget.data, widget.data_updated_at = data, timezone.now()
    widget.version += 1
    widget.save()
    events.widget_changed(widget, "widgets.widget.data_updated")
    return widget


@transaction.atomic
def delete_widget(principal: Principal, *, widget_id: Any = None, slug: Any = None) -> int:
    widget = get_widget(principal, widget_id=widget_id, slug=slug, for_update=True)
    pk, owner = widget.pk, widget.owner
    widget.delete()
    events.widget_deleted(pk, owner)
    return pk
