"""Consent: may a path (of a connection) be indexed at all?

Rules are index switches on folder paths; the longest matching prefix decides, so a subfolder can
override its parent either way. A rule with an empty prefix and a connection key is that
connection's global consent: switched off, nothing of the connection is indexed, whatever its
folders say. Revoking consent purges the affected chunks synchronously, in the same transaction,
and cancels the subtree's running jobs; no rule means "enabled".
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.errors import Forbidden
from apps.knowledge.contracts import ConsentSwitch
from apps.knowledge.errors import KnowledgeNotFound
from apps.knowledge.models import PATH_MAX, ConsentRule, IndexJob, KnowledgeFile, Scope


def normalize_path(path: str | None) -> str:
    """`/Kanzlei/Steuern` form: one leading slash, no trailing slash, the root is ''."""
    parts = [p.strip() for p in str(path or "").replace("\\", "/").split("/")]
    if any(p in (".", "..") for p in parts):
        raise validation.invalid("path", _("must not contain . or .. segments"))
    parts = [p for p in parts if p]
    return "/" + "/".join(parts) if parts else ""


def covers(prefix: str, path: str) -> bool:
    return prefix == "" or path == prefix or path.startswith(prefix + "/")


def under(prefix: str) -> Q:
    """Files whose path lies in the subtree of `prefix` (segment-wise, `/a` does not cover `/ab`)."""
    if prefix == "":
        return Q()
    return Q(path=prefix) | Q(path__startswith=prefix + "/")


class Resolver:
    """Effective consent for many paths with one query (the Wissen page, bulk purges)."""

    def __init__(self, rules: Iterable[ConsentRule] | None = None) -> None:
        self.rules = list(ConsentRule.objects.all() if rules is None else rules)

    def rule_for(self, path: str, connection_key: str = "") -> ConsentRule | None:
        path = normalize_path(path)
        if connection_key:
            gate = next(
                (r for r in self.rules if r.connection_key == connection_key and r.path_prefix == ""), None
            )
            if gate is not None and not gate.enabled:
                return gate
        matching = [
            r for r in self.rules if r.connection_key in ("", connection_key) and covers(r.path_prefix, path)
        ]
        # Longest prefix wins; on a tie the connection's own rule beats the generic one.
        return max(matching, key=lambda r: (len(r.path_prefix), r.connection_key != ""), default=None)

    def enabled(self, path: str, connection_key: str = "") -> bool:
        rule = self.rule_for(path, connection_key)
        return True if rule is None else rule.enabled


def is_enabled(path: str, connection_key: str = "") -> bool:
    rules = ConsentRule.objects.filter(connection_key__in={"", connection_key})
    return Resolver(rules).enabled(path, connection_key)


# --- changing consent -------------------------------------------------------------------------
def _affected(prefix: str, connection_key: str) -> QuerySet[KnowledgeFile]:
    qs = KnowledgeFile.objects.filter(under(prefix))
    return qs.filter(connection_key=connection_key) if connection_key else qs


def _check_may_change(principal: Principal, prefix: str, connection_key: str) -> None:
    """Admins set any switch. Staff switch folders that hold only their own personal files."""
    scope = principal.resource_scope
    if scope.is_admin:
        return
    if scope.user_id is None:
        raise Forbidden(_("Only a person can change what is indexed."))
    files = _affected(prefix, connection_key)
    if (
        prefix == ""
        or not files.exists()
        or files.exclude(scope=Scope.PERSONAL, owner_id=scope.user_id).exists()
    ):
        raise Forbidden(_("Only administrators can change indexing for shared folders or connections."))


def purge_file(file: KnowledgeFile, *, status: str = KnowledgeFile.Status.EXCLUDED) -> None:
    """Remove everything indexed of `file` now (chunks, kept text) and stop its jobs."""
    from apps.knowledge import indexing

    indexing.cancel_file_jobs(file)
    file.chunks.all().delete()
    file.text, file.sections, file.chunk_count, file.content_hash = "", [], 0, ""
    file.status, file.error = status, ""
    file.save(
        update_fields=["text", "sections", "chunk_count", "content_hash", "status", "error", "updated_at"]
    )


@transaction.atomic
def set_consent(principal: Principal, data: ConsentSwitch) -> tuple[ConsentRule, int]:
    """Switch indexing for a folder subtree (or with `path=''` and a key, a whole connection).
    Returns the rule and how many files were purged (off) or queued again (on)."""
    prefix, connection_key, enabled = normalize_path(data.path), data.connection_key, data.enabled
    if len(prefix) > PATH_MAX:  # normalizing may add slashes
        raise validation.invalid("path", _("is too long"))
    _check_may_change(principal, prefix, connection_key)
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
    _check_may_change(principal, rule.path_prefix, rule.connection_key)
    prefix, key = rule.path_prefix, rule.connection_key
    rule.delete()
    return _apply(principal, prefix, key)


def _apply(principal: Principal, prefix: str, connection_key: str) -> int:
    """Bring every file of the subtree in line with the rules now in force."""
    from apps.knowledge import indexing

    resolver = Resolver()
    changed = 0
    files = _affected(prefix, connection_key).select_for_update().order_by("pk")
    for file in files:
        allowed = resolver.enabled(file.path, file.connection_key)
        if not allowed and file.status != KnowledgeFile.Status.EXCLUDED:
            purge_file(file)
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
