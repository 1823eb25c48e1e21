"""Sharing one record with people and groups: the glue the board, folder, document and note
services build on (django-guardian object permissions, one row per person or group and right).

The domain service decides who may share (the record's owner) and sends the live events; this
module resolves who a share names, reads and writes the grants, and says who gained and who lost
sight of the record, so the service can send the removal to exactly those people.

A share target is written `user:<id>` or `group:<id>` (what the share dialog posts). An unknown
or deactivated person, or an unknown group, is `share_target_not_found`: nothing is granted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q
from django.db.models.expressions import RawSQL
from django.utils.translation import gettext as _
from guardian.shortcuts import assign_perm, remove_perm
from guardian.utils import get_group_obj_perms_model, get_user_obj_perms_model

from apps.core.errors import InvalidInput, ShareTargetNotFound

SEARCH_LIMIT = 10


@dataclass(frozen=True)
class Target:
    kind: str  # "user" | "group"
    obj: Any

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.obj.pk}"

    @property
    def label(self) -> str:
        if self.kind == "group":
            return self.obj.name
        return self.obj.get_full_name() or self.obj.email

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "id": self.obj.pk, "label": self.label}


def resolve_target(value: Any) -> Target:
    """`user:<id>` / `group:<id>` (or a bare user id) → the active person or the group."""
    kind, _sep, raw = str(value or "").strip().partition(":")
    if not raw:
        kind, raw = "user", kind
    if kind in ("user", "group") and raw.isdigit():
        if kind == "user":
            user = get_user_model().objects.filter(pk=int(raw), is_active=True).first()
            if user is not None:
                return Target("user", user)
        else:
            group = Group.objects.filter(pk=int(raw)).first()
            if group is not None:
                return Target("group", group)
    raise ShareTargetNotFound.field(
        "target", _("There is no active person or group “%(target)s” to share with.") % {"target": value}
    )


Levels = dict[str, tuple[str, ...]]  # level → the permission codenames it consists of, weakest first


def grants(obj: Any, levels: Levels) -> list[tuple[Target, str]]:
    """(target, level) for the people and groups holding a level on `obj` directly (a person's
    access through a group shows as the group's), people first; the level is the strongest one
    whose rights are all held."""
    held: dict[str, tuple[Target, set[str]]] = {}
    for row in _perm_rows(obj, get_user_obj_perms_model(obj), "user"):
        held.setdefault(f"user:{row.user_id}", (Target("user", row.user), set()))[1].add(
            row.permission.codename
        )
    for row in _perm_rows(obj, get_group_obj_perms_model(obj), "group"):
        held.setdefault(f"group:{row.group_id}", (Target("group", row.group), set()))[1].add(
            row.permission.codename
        )
    found = []
    for target, perms in held.values():
        level = next((name for name, needed in reversed(levels.items()) if set(needed) <= perms), None)
        if level is not None:
            found.append((target, level))
    return found


def _perm_rows(obj: Any, model: Any, who: str):
    """The object-permission rows of `obj` (one query, with the person or group and the right)."""
    rows = model.objects.filter(content_type=ContentType.objects.get_for_model(obj), object_pk=str(obj.pk))
    order = ("user__full_name", "user__email") if who == "user" else ("group__name",)
    return rows.select_related(who, "permission").order_by(*order, "id")


def granted_to(user: Any, perm: str, klass: Any) -> Any:
    """The rows of `klass` (a model or queryset) `user` holds the object permission `perm`
    ("app_label.codename") on, directly or through a group. Only grants count: no global
    permission and no superuser status widens what a person was shared.

    What guardian's `get_objects_for_user(..., accept_global_perms=False, with_superuser=False)`
    answers, as one small subquery: guardian's builds a nested ORM query of several joins, which
    cost milliseconds of building and compiling in every visibility check (`context_search` runs
    three per call for Notizen alone)."""
    qs = klass._default_manager.all() if isinstance(klass, type) else klass
    return qs.filter(pk__in=granted_pks(user.pk, qs.model, perm.split(".", 1)[-1]))


def granted_pks(user_id: int, model: Any, codename: str) -> RawSQL:
    """The subquery behind `granted_to`: the pks of `model` rows the user (id) holds `codename`
    on, directly or through a group; its shape never depends on the values."""
    user_perms = get_user_obj_perms_model()._meta.db_table
    group_perms = get_group_obj_perms_model()._meta.db_table
    memberships = get_user_model().groups.through._meta.db_table
    permission = """(SELECT p.id FROM auth_permission p
        JOIN django_content_type ct ON ct.id = p.content_type_id
        WHERE ct.app_label = %s AND ct.model = %s AND p.codename = %s)"""
    label = [model._meta.app_label, model._meta.model_name, codename]
    sql = f"""SELECT u.object_pk::bigint FROM {user_perms} u
        WHERE u.user_id = %s AND u.permission_id = {permission}
        UNION ALL
        SELECT g.object_pk::bigint FROM {group_perms} g
        JOIN {memberships} m ON m.group_id = g.group_id
        WHERE m.user_id = %s AND g.permission_id = {permission}"""  # noqa: S608 (table names from model meta)
    return RawSQL(sql, [user_id, *label, user_id, *label])  # noqa: S611 (values are parameters)


def level_of(obj: Any, target: Target, levels: Levels) -> str | None:
    return next((level for t, level in grants(obj, levels) if t.key == target.key), None)


def grant(obj: Any, target: Target, levels: Levels, level: str) -> None:
    """Give `target` exactly `level` (an upgrade adds rights, a downgrade takes the extra ones)."""
    wanted = set(levels[level])
    for perm in sorted({p for perms in levels.values() for p in perms} - wanted):
        remove_perm(perm, target.obj, obj)
    for perm in levels[level]:
        assign_perm(perm, target.obj, obj)


def revoke(obj: Any, target: Target, levels: Levels) -> None:
    for perm in sorted({p for perms in levels.values() for p in perms}):
        remove_perm(perm, target.obj, obj)


def check_level(level: Any, levels: Levels) -> str:
    if level not in levels:
        raise InvalidInput.field("level", _("must be one of %(levels)s") % {"levels": ", ".join(levels)})
    return level


def payload(
    obj: Any, *, owner: Any, levels: Levels, can_manage: bool, level_labels: dict[str, str] | None = None
) -> dict[str, Any]:
    """What the share dialog shows: the owner, the grants with their level, the offered levels."""
    labels = level_labels or {}
    return {
        "owner": Target("user", owner).as_dict() if owner is not None else None,
        "grants": [target.as_dict() | {"level": level} for target, level in grants(obj, levels)],
        "levels": [{"key": key, "label": str(labels.get(key, key))} for key in levels],
        "can_manage": can_manage,
    }


def changed_viewers(old: Any, new: Any) -> tuple[set[int], set[int]]:
    """(gained, lost) user ids between two viewer sets; "everyone" on either side counts as no
    change (a record seen by the whole office is not narrowed or widened by a share)."""
    if not isinstance(old, set) or not isinstance(new, set):
        return set(), set()
    return new - old, old - new


def search(query: str, *, exclude_user_ids: Iterable[int] = (), limit: int = SEARCH_LIMIT) -> list[dict]:
    """Active people (name or e-mail) and groups (name) matching `query`, for the share dialog."""
    query = (query or "").strip()[:100]
    users = get_user_model().objects.filter(is_active=True).exclude(pk__in=list(exclude_user_ids))
    groups = Group.objects.all()
    if query:
        users = users.filter(Q(full_name__icontains=query) | Q(email__icontains=query))
        groups = groups.filter(name__icontains=query)
    found = [Target("user", u).as_dict() for u in users.order_by("full_name", "email")[:limit]]
    found += [Target("group", g).as_dict() for g in groups.order_by("name")[: max(0, limit - len(found))]]
    return found


@dataclass(frozen=True)
class Operations:
    """The share dialog's operations on one kind of record, bound once: `read(principal, id,
    as_admin=)` answers the dialog's payload, `change(principal, id, target, level, as_admin=)`
    gives `target` the level (None: takes its access away)."""

    read: Callable[..., dict[str, Any]]
    change: Callable[..., Any]

    def shares(self, principal: Any, record_id: Any, *, as_admin: bool = False) -> dict[str, Any]:
        return self.read(principal, record_id, as_admin=as_admin)

    def grant(
        self, principal: Any, record_id: Any, target: Any, level: str = "view", *, as_admin: bool = False
    ):
        return self.change(principal, record_id, target, level, as_admin=as_admin)

    def revoke(self, principal: Any, record_id: Any, target: Any, *, as_admin: bool = False):
        return self.change(principal, record_id, target, None, as_admin=as_admin)
