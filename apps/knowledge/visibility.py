"""Who may retrieve which indexed content, resolved once from the principal.

* personal: the owner only (an admin does not read other people's personal chunks either)
* client: whoever sees the client (`apps.clients.visibility`)
* instance: every staff user and every service principal
* service principals see shared scopes only (client, instance), never anyone's personal data

The same rules exist twice on purpose: as a `Q` for ORM reads and as an SQL fragment for the
hand-written hybrid search, both applied before any ranking.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet

from apps.accounts.principal import Principal
from apps.clients import visibility as client_visibility
from apps.knowledge.models import KnowledgeFile, Scope

PERSONAL, SHARED, ALL = "personal", "shared", "all"
SCOPE_CHOICES = (PERSONAL, SHARED, ALL)


def _client_ids_subquery(principal: Principal):
    return client_visibility.visible_clients(principal).order_by().values("id")


def file_filter(principal: Principal, scope: str = ALL) -> Q:
    """Rows of `KnowledgeFile` (or `Chunk`, same column names) the principal may retrieve."""
    user_id = principal.resource_scope.user_id
    personal = Q(scope=Scope.PERSONAL, owner_id=user_id) if user_id is not None else Q(pk__in=[])
    shared = Q(scope=Scope.INSTANCE) | Q(scope=Scope.CLIENT, client_id__in=_client_ids_subquery(principal))
    if scope == PERSONAL:
        return personal
    if scope == SHARED:
        return shared
    return personal | shared


def visible_files(principal: Principal, scope: str = ALL) -> QuerySet[KnowledgeFile]:
    return KnowledgeFile.objects.filter(file_filter(principal, scope))


def listed_files(principal: Principal) -> QuerySet[KnowledgeFile]:
    """The Wissen page: admins see every file's metadata (never its content), staff their own
    personal files and the shared ones."""
    if principal.resource_scope.is_admin:
        return KnowledgeFile.objects.all()
    return visible_files(principal)


def scope_sql(principal: Principal, scope: str = ALL, alias: str = "c") -> tuple[str, list]:
    """The same filter as `file_filter` as an SQL fragment over the chunk table's copied columns."""
    user_id = principal.resource_scope.user_id
    clients_sql, clients_params = _client_ids_subquery(principal).query.sql_with_params()
    shared = (
        f"({alias}.scope = 'instance' OR ({alias}.scope = 'client' AND {alias}.client_id IN ({clients_sql})))"
    )
    personal = f"({alias}.scope = 'personal' AND {alias}.owner_id = %s)"
    if scope == PERSONAL:
        return (personal, [user_id]) if user_id is not None else ("FALSE", [])
    if scope == SHARED or user_id is None:
        return shared, list(clients_params)
    return f"({personal} OR {shared})", [user_id, *clients_params]
