"""Consent: may a path (of a connection) be indexed at all?

Rules are index switches on folder paths; the longest matching prefix decides, so a subfolder can
override its parent either way. A rule with an empty prefix and a connection key is that
connection's global consent: switched off, nothing of the connection is indexed, whatever its
folders say. Revoking consent purges the affected chunks synchronously, in the same transaction,
and cancels the subtree's running jobs; no rule means "enabled".
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q
from django.utils.translation import gettext as _

from apps.core import validation
from apps.knowledge.models import ConsentRule, KnowledgeFile


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
def purge_file(file: KnowledgeFile, *, status: str = KnowledgeFile.Status.EXCLUDED) -> None:
    """Remove everything indexed of `file` now (chunks, kept text) and stop its jobs."""
    file.cancel_jobs()
    file.chunks.all().delete()
    file.text, file.sections, file.chunk_count, file.content_hash = "", [], 0, ""
    file.status, file.error = status, ""
    file.save(
        update_fields=["text", "sections", "chunk_count", "content_hash", "status", "error", "updated_at"]
    )
