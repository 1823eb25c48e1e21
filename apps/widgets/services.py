"""The only place that changes widgets. A widget belongs to one person: every read and write is
scoped to the principal's own user, and another person's widget answers exactly like a missing
one (`widget_not_found`). Service principals have no dashboard (`NoUserContext`)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounts.models import User
from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.db.ordering import next_position
from apps.core.db.saving import save_unique
from apps.core.db.versioning import Versioned
from apps.widgets import events
from apps.widgets.contracts import WidgetCreate, WidgetDataUpdate, WidgetFilter, WidgetOut, WidgetUpdate
from apps.widgets.definitions import check_data, infer_definition, validate_definition
from apps.widgets.errors import NoUserContext, SlugTaken, WidgetNotFound
from apps.widgets.models import SLUG_MAX, Widget

MAX_LIST = 200
# Plain columns an update sets as sent (the layout is validated and resets `definition_inferred`).
_COLUMNS = ("title", "description", "show_on_dashboard", "position")
WIDGET_VERSION = Versioned(
    "widget", WidgetOut.record, gettext_lazy("The widget was changed in the meantime.")
)
_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


def _owner(principal: Principal) -> User:
    if principal.user is None:
        raise NoUserContext(_("Widgets belong to a person's dashboard; this caller has none."))
    return principal.user


def visible_widgets(principal: Principal) -> QuerySet[Widget]:
    return Widget.objects.filter(owner=_owner(principal))


def list_widgets(principal: Principal, filters: WidgetFilter | None = None) -> list[Widget]:
    filters = filters if filters is not None else WidgetFilter()
    qs = visible_widgets(principal)
    if filters.dashboard_only:
        qs = qs.filter(show_on_dashboard=True)
    if query := filters.query:
        qs = qs.filter(Q(title__icontains=query) | Q(description__icontains=query) | Q(slug__icontains=query))
    return list(qs.select_related("owner")[:MAX_LIST])


def dashboard_widgets(user: User) -> list[Widget]:
    """The cards of one person's dashboard, in their order (one query)."""
    return list(Widget.objects.filter(owner=user, show_on_dashboard=True).select_related("owner")[:MAX_LIST])


def get_widget(
    principal: Principal, *, widget_id: int | None = None, slug: str | None = None, for_update: bool = False
) -> Widget:
    qs = visible_widgets(principal).select_related("owner")
    if for_update:
        qs = qs.select_for_update(of=("self",))
    try:
        if widget_id is not None:
            return qs.get(pk=widget_id)
        return qs.get(slug=str(slug))
    except (Widget.DoesNotExist, TypeError, ValueError):
        ref = widget_id if widget_id is not None else slug
        raise WidgetNotFound(_("There is no widget “%(ref)s”.") % {"ref": ref}) from None


def _slug(owner: User, requested: str | None, title: str) -> str:
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


def _layout(definition: object, data: object, title: str) -> tuple[dict, bool]:
    if definition is not None:
        return validate_definition(definition), False
    if data is None:
        raise validation.invalid(
            "widget_definition",
            _("send a widget_definition or latest_data to infer it from"),
        )
    return infer_definition(data, title), True


@transaction.atomic
def create_widget(principal: Principal, data: WidgetCreate) -> Widget:
    owner = _owner(principal)
    latest = check_data(data.latest_data) if data.latest_data is not None else None
    definition, inferred = _layout(data.layout(), latest, data.title)
    widget = Widget(
        owner=owner,
        slug=_slug(owner, data.slug or None, data.title),
        title=data.title,
        description=data.description or "",
        type=definition["type"],
        definition=definition,
        definition_inferred=inferred,
        data=latest,
        data_updated_at=timezone.now() if latest is not None else None,
        show_on_dashboard=data.show_on_dashboard,
        position=next_position(Widget.objects.filter(owner=owner)),
    )
    save_unique(widget, lambda: SlugTaken(_("This widget address was just taken; please try again.")))
    events.widget_changed(widget, "widgets.widget.created")
    return widget


@transaction.atomic
def update_widget(
    principal: Principal, data: WidgetUpdate, *, widget_id: int | None = None, slug: str | None = None
) -> Widget:
    """Partial update of name, description, definition, dashboard visibility and position (the
    fields sent). A new definition replaces the inferred layout for good."""
    changes = data.changes()
    widget = _changing(principal, data.expected_version, widget_id, slug)
    for name in _COLUMNS:
        if name in changes:
            setattr(widget, name, changes[name])
    if "definition" in changes:
        widget.definition = validate_definition(changes["definition"])
        widget.type, widget.definition_inferred = widget.definition["type"], False
    return _changed(widget, "widgets.widget.updated")


@transaction.atomic
def update_data(
    principal: Principal, data: WidgetDataUpdate, *, widget_id: int | None = None, slug: str | None = None
) -> Widget:
    """Replace the latest data. A layout that was inferred follows the data (a list that gains
    columns becomes a table); an explicit definition stays as it is. Empty data never downgrades."""
    widget = _changing(principal, data.expected_version, widget_id, slug)
    latest = check_data(data.latest_data)
    if widget.definition_inferred and latest not in (None, "", [], {}):
        widget.definition = infer_definition(latest, widget.title)
        widget.type = widget.definition["type"]
    widget.data, widget.data_updated_at = latest, timezone.now()
    return _changed(widget, "widgets.widget.data_updated")


def _changing(
    principal: Principal, expected_version: int | None, widget_id: int | None, slug: str | None
) -> Widget:
    """The widget to change, locked, when it is still at `expected_version` (else VersionConflict)."""
    widget = get_widget(principal, widget_id=widget_id, slug=slug, for_update=True)
    WIDGET_VERSION.check(widget, expected_version)
    return widget


def _changed(widget: Widget, event: str) -> Widget:
    """Save a change as the widget's next version and tell its owner's pages (`event`)."""
    widget.version += 1
    widget.save()
    events.widget_changed(widget, event)
    return widget


@transaction.atomic
def delete_widget(principal: Principal, *, widget_id: int | None = None, slug: str | None = None) -> int:
    widget = get_widget(principal, widget_id=widget_id, slug=slug, for_update=True)
    pk, owner = widget.pk, widget.owner
    widget.delete()
    events.widget_deleted(pk, owner)
    return pk
