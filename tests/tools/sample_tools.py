"""Tools that exist only in tests, to drive every branch of the dispatcher."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Literal

from django.db import connection
from pydantic import Field

from apps.core import plugins
from apps.core.errors import DomainError
from apps.core.models import InstanceSetting
from apps.core.plugins import ToolFamily
from apps.tools.args import Args
from apps.tools.context import ToolContext
from apps.tools.registry import tool
from apps.tools.results import ToolOutput

BARRIER = {"barrier": None}


class EchoArgs(Args):
    text: str = Field(max_length=50)
    times: int = Field(default=1, ge=1, le=3)


class SampleFailure(DomainError):
    code = "testkit_failure"


# The testkit is no installed app: declare its gated family as an AppConfig's tool_families would.
plugins.tool_families().setdefault("testgated", ToolFamily("testgated", module="testmodule"))


@tool(name="testkit_echo", family="testkit", read_only=True, description="Echo text. For tests.")
def echo(ctx: ToolContext, args: EchoArgs) -> dict:
    return {"text": args.text * args.times}


class MeetArgs(Args):
    label: str


@tool(name="testkit_meet", family="testkit", read_only=True, description="Wait at a shared barrier.")
def meet(ctx: ToolContext, args: MeetArgs) -> dict:
    barrier: threading.Barrier = BARRIER["barrier"]
    barrier.wait(timeout=5)  # raises BrokenBarrierError (→ execution failed) if run one by one
    return {"label": args.label, "thread": threading.get_ident()}


class WriteArgs(Args):
    key: str = Field(max_length=50)
    fail: Literal["none", "domain", "crash", "database", "unserializable"] = "none"


@tool(
    name="testkit_write",
    family="testkit",
    read_only=False,
    requires_user=True,
    description="Write an instance setting; can fail in several ways. For tests.",
)
def write(ctx: ToolContext, args: WriteArgs):
    InstanceSetting.objects.create(key=args.key, value={"by": ctx.principal.audit_label})
    if args.fail == "domain":
        raise SampleFailure("Die Aufgabe gibt es nicht.")
    if args.fail == "crash":
        raise RuntimeError("password=hunter2 leaked internals")
    if args.fail == "database":
        with connection.cursor() as cur:
            cur.execute("SELECT * FROM secret_table_that_does_not_exist")
    if args.fail == "unserializable":
        return {"when": datetime.now(), "obj": object()}
    return ToolOutput(output={"key": args.key}, ui_actions=[{"type": "highlight", "record_id": args.key}])


class GatedArgs(Args):
    pass


@tool(
    name="testkit_gated",
    family="testgated",
    read_only=True,
    description="A tool owned by an optional module.",
)
def gated(ctx: ToolContext, args: GatedArgs) -> dict:
    return {"ran": True}


@tool(
    name="testkit_gated_but_core",
    family="testgated",
    also_in=("calendar",),
    read_only=True,
    description="Owned by an optional module but also in a core family.",
)
def gated_but_core(ctx: ToolContext, args: GatedArgs) -> dict:
    return {"ran": True}


@tool(
    name="testkit_live_only", family="testkit", surfaces=("live",), read_only=True, description="Live only."
)
def live_only(ctx: ToolContext, args: GatedArgs) -> dict:
    return {}
