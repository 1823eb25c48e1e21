"""Switching consent: an admin's or owner's switch on a folder or connection, applied at once.
Switched off, the subtree's indexed text is purged and its jobs stopped; switched on again, its
files are queued from their sources. Apart from `consent` (the rules themselves), which indexing
asks on every file, so the two do not import each other."""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.errors import Forbidden
from apps.knowledge import consent, indexing
from apps.knowledge.consent import under
from apps.knowledge.contracts import ConsentSwitch
from apps.knowledge.errors import KnowledgeNotFound
from apps.knowledge.models import PATH_MAX, ConsentRule, IndexJob, KnowledgeFile, Scope


def affected(prefix: str, connection_key: str) -> QuerySet[KnowledgeFile]:
    qs = KnowledgeFile.objects.filter(under(prefix))
    return qs.filter(connection_key=connection_key) if connection_key else qs


def check_may_change(principal: Principal, prefix: str, connection_key: str) -> None:
    """Admins set any switch. Staff switch folders that hold only their own personal files."""
    scope = principal.resource_scope
    if scope.is_admin:
        return
    if scope.user_id is None:
        raise Forbidden(_("Only a person can change what is indexed."))
    files = affected(prefix, connection_key)
    if (
        prefix == ""
        or not files.exists()
        or files.exclude(scope=Scope.PERSONAL, owner_id=scope.user_id).exists()
    ):
        raise Forbidden(_("Only administrators can change indexing for shared folders or connections."))


@transaction.atomic
def set_consent(principal: Principal, data: ConsentSwitch) -> tuple[ConsentRule, int]:
    """Switch indexing for a folder subtree (or with `path=''` and a key, a whole connection).
    Returns the rule and how many files were purged (off) or queued again (on)."""
    prefix, connection_key, enabled = consent.normalize_path(data.path), data.connection_key, data.enabled
    if len(prefix) > PATH_MAX:  # normalizing may add slashes
        raise validation.invalid("path", _("is too long"))
    check_may_change(principal, prefix, connection_key)
    rule, _created = ConsentRule.objects.update_or_create(
        connection_key=connection_key,
        path_prefix=prefix,
        defaults={"enabled": enabled, "changed_by": principal.audit_actor},
    )
    return rule, _apply(principal, prefix, connection_key)


@transaction.atomic
def clear_rule(principal: Principal, rule_id: int) -> int:
    """Drop a switch so the folder inherits again; applies the new effective consent at once."""
    rule = ConsentRule.objects.select_for_update().filter(pk=rule_id).first()
    if rule is None:
        raise KnowledgeNotFound(_("There is no such consent rule."))
    check_may_change(principal, rule.path_prefix, rule.connection_key)
    prefix, key = rule.path_prefix, rule.connection_key
    rule.delete()
    return _apply(principal, prefix, key)


def _apply(principal: Principal, prefix: str, connection_key: str) -> int:
    """Bring every file of the subtree in line with the rules now in force."""
    resolver = consent.Resolver()
    changed = 0
    files = affected(prefix, connection_key).select_for_update().order_by("pk")
    for file in files:
        allowed = resolver.enabled(file.path, file.connection_key)
        if not allowed and file.status != KnowledgeFile.Status.EXCLUDED:
            consent.purge_file(file)
            changed += 1
        elif allowed and file.status == KnowledgeFile.Status.EXCLUDED:
            changed += int(indexing.reload_source(file, requested_by=principal.audit_actor))
    return changed


@transaction.atomic
def stop_connection_jobs(principal: Principal, connection_key: str) -> int:
    """Cancel every running or queued job of one connection (the "stop" button)."""
    if not principal.resource_scope.is_admin:
        raise Forbidden(_("Only administrators can stop a connection's indexing."))
    jobs = IndexJob.objects.filter(status__in=IndexJob.ACTIVE, file__connection_key=connection_key)
    return jobs.update(cancel_requested=True)
