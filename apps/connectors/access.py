"""Which configurations a call may use: the agent's own (the main copilot: specialist None),
enabled, and granted to the person behind the run (django-guardian `use_connector`, to the user
or one of their groups). Nothing else is ever visible, so another agent's configuration cannot be
named, probed or used."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from apps.connectors.errors import ConnectorNotFound
from apps.connectors.models import Connector
from apps.core.sharing import granted_to
from apps.tools.context import ToolContext

PERMISSION = "connectors.use_connector"


def agent_of(ctx: ToolContext) -> int | None:
    value = ctx.specialist_id
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1  # an agent id that is no number owns no configuration


def usable(ctx: ToolContext, tool: str) -> QuerySet[Connector]:
    person = ctx.principal.user or ctx.principal.acting_user
    qs = Connector.objects.filter(tool=tool, enabled=True, specialist_id=agent_of(ctx))
    if person is None:
        return qs.none()
    granted: QuerySet[Connector] = granted_to(person, PERMISSION, qs)
    return granted


def resolve(ctx: ToolContext, tool: str, name: str) -> Connector:
    found = usable(ctx, tool).filter(name=name).first()
    if found is None:
        names = sorted(usable(ctx, tool).values_list("name", flat=True))
        raise ConnectorNotFound(
            _("There is no connector “%(name)s” for this agent. Available: %(names)s.")
            % {"name": name[:80], "names": ", ".join(names) or "-"},
            details={"available": names},
        )
    return found
