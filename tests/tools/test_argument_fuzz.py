"""Every tool's argument model under generated input, through the real dispatcher as a staff
member: arguments drawn from the tool's own JSON schema, valid ones and ones that violate it
(schemathesis's generators over a one-operation-per-tool document; hypothesis-jsonschema 0.23
does not run on this Hypothesis), and variants near valid ones (a field of any JSON value, an
unknown field, a required one missing, huge numbers, NUL characters, deep nesting, not an object).

No call may end in `CLAPILOT_TOOL_EXECUTION_FAILED` (or the serialization failure): every refusal
is a stable `ok:false` code. A refused call leaves the office's data as it was (nothing
half-written). Tools that call a model reach the scripted fake server.

Bounded (`CLAPILOT_FUZZ_TOOL_EXAMPLES` draws per tool) and derandomized; `CLAPILOT_FUZZ_RANDOM=1`
explores with fresh seeds.
"""

from __future__ import annotations

import collections
import os
import time

import hypothesis
import pytest
import schemathesis
from django.apps import apps as django_apps
from django.db import connection
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

pytestmark = [pytest.mark.django_db, pytest.mark.fuzz]

EXAMPLES = int(os.environ.get("CLAPILOT_FUZZ_TOOL_EXAMPLES", "14"))
DERANDOMIZE = os.environ.get("CLAPILOT_FUZZ_RANDOM") != "1"
CRASH_CODES = {"CLAPILOT_TOOL_EXECUTION_FAILED", "CLAPILOT_TOOL_OUTPUT_SERIALIZATION_FAILED"}
# Rows every call writes whatever its outcome (the audit), or that a refusal may leave on
# purpose: neither counts as "half-written".
NOT_DATA = {"tools_toolexecution"}

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    | st.sampled_from(["", " ", "\x00", "a\x00b", "9223372036854775808", "-1", "0", "x" * 5000])
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


# JSON texts (the dispatcher also takes the arguments as a string, as models send them).
DEEP = '{"a": ' * 1200 + "1" + "}" * 1200
LONG_NUMBER = '{"a": ' + "9" * 5000 + "}"


def _tool_document(tools) -> schemathesis.BaseSchema:
    """One POST operation per tool whose JSON body is the tool's arguments."""
    from apps.tools import catalog

    paths = {
        f"/{t.name}": {
            "post": {
                "operationId": t.name,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": catalog.describe(t)["parameters"]}},
                },
                "responses": {"200": {"description": "the tool result"}},
            }
        }
        for t in tools
    }
    return schemathesis.openapi.from_dict(
        {"openapi": "3.1.0", "info": {"title": "tool arguments", "version": "1"}, "paths": paths}
    )


def _arguments(document, t):
    operation = document[f"/{t.name}"]["POST"]
    valid = operation.as_strategy(generation_mode=schemathesis.GenerationMode.POSITIVE).map(lambda c: c.body)
    violating = operation.as_strategy(generation_mode=schemathesis.GenerationMode.NEGATIVE).map(
        lambda c: c.body
    )
    return st.one_of(valid, violating, _near_valid(valid, catalog_schema(t)))


def catalog_schema(t) -> dict:
    from apps.tools import catalog

    return catalog.describe(t)["parameters"]


def _near_valid(valid, schema: dict):
    """Arguments near the valid ones that are wrong in one way each."""
    properties = list(schema.get("properties", {}))
    required = list(schema.get("required", []))
    variants = [
        # One field's value replaced by anything at all.
        st.tuples(valid, st.sampled_from(properties), JSON_VALUES).map(lambda t: {**t[0], t[1]: t[2]})
        if properties
        else JSON_VALUES.map(lambda v: {"x": v}),
        # An unknown field.
        valid.map(lambda v: {**v, "unexpected_field": 1}),
        # Not an object at all, or a JSON text that is not one.
        st.one_of(
            JSON_SCALARS, st.lists(JSON_SCALARS, max_size=2), st.sampled_from(["{", "[]", '{"a": 1e999}'])
        ),
        # Nesting no client should send, and a number of 5,000 digits.
        st.sampled_from([DEEP, LONG_NUMBER]),
    ]
    if required:
        variants.append(st.tuples(valid, st.sampled_from(required)).map(lambda t: _without(*t)))
    return st.one_of(variants)


def _without(args: dict, key: str) -> dict:
    return {k: v for k, v in args.items() if k != key}


def _data_fingerprint() -> tuple:
    """Row count of every app table (one query): a refused call must not change any."""
    tables = sorted(
        model._meta.db_table
        for model in django_apps.get_models()
        if model._meta.managed
        and not model._meta.proxy
        and model._meta.app_label != "sessions"
        and model._meta.db_table not in NOT_DATA
    )
    sql = " UNION ALL ".join(f"SELECT '{t}', count(*) FROM \"{t}\"" for t in tables)
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return tuple(cursor.fetchall())


@pytest.fixture
def staff_ctx(db, fake_openai):
    """Anna, a staff member of the demo office, with every module installed and a default model
    on the scripted server."""
    from apps.accounts.models import User
    from apps.accounts.principal import Principal
    from apps.core.services import set_setting
    from apps.llm.models import ModelConfig, Provider
    from apps.ops import demo
    from apps.tools import gating, registry

    admin = User.objects.create_superuser(email="chef@kanzlei.example", password="pw-123456789", role="admin")
    office = demo.load_once(admin, None)
    provider = Provider.objects.create(
        name="Fake", kind=Provider.Kind.OPENAI_COMPATIBLE, base_url=fake_openai.base_url, api_key="sk-test"
    )
    set_setting("default_chat_model", ModelConfig.objects.create(provider=provider, model_id="fake-model").pk)
    for module in {t.module for t in registry.all_tools() if t.module}:
        gating.set_installed(module, True)
    # The office lets the copilot use every tool without asking (deletes would otherwise be staged,
    # a write on purpose, also through tool_execute): the tools' own refusals are fuzzed here.
    from apps.approvals.models import Policy

    for t in registry.all_tools():
        if any(t.default_for(op) != registry.RUN for op in t.operations):
            Policy.objects.create(tool=t.name, allowed=["*"])
    return Principal.for_user(office.users["anna"])


def _fuzz_tool(document, t, principal, stats, crashes, half_written) -> None:
    from apps.tools.context import ToolContext
    from apps.tools.dispatcher import dispatch

    ctx = ToolContext(principal=principal, surface="native" if "native" in t.surfaces else min(t.surfaces))

    @hypothesis.settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=DERANDOMIZE,
        suppress_health_check=list(HealthCheck),
        phases=[hypothesis.Phase.generate],
    )
    @given(args=_arguments(document, t))
    def probe(args):
        before = _data_fingerprint()
        result = dispatch(t.name, args, ctx)
        stats["calls"] += 1
        stats["ok" if result.ok else "refused"] += 1
        if result.code in CRASH_CODES or (not result.ok and not result.code):
            crashes.append(f"{t.name}({str(args)[:300]}) → {result.code}: {result.message}")
        elif not result.ok and _data_fingerprint() != before:
            half_written.append(f"{t.name}({str(args)[:300]}) → {result.code} changed data")
        elif not result.ok:
            stats[f"code {result.code}"] += 1

    probe()


def test_every_tool_refuses_bad_arguments_with_a_stable_code(staff_ctx, capsys):
    from apps.tools import registry

    stats: collections.Counter = collections.Counter()
    crashes: list[str] = []
    half_written: list[str] = []
    started = time.monotonic()
    # The test suite's own sample tools (tests.tools.sample_tools) crash on purpose.
    tools = sorted(
        (t for t in registry.all_tools() if not t.handler.__module__.startswith("tests.")),
        key=lambda t: t.name,
    )
    document = _tool_document(tools)
    for t in tools:
        _fuzz_tool(document, t, staff_ctx, stats, crashes, half_written)
    elapsed = time.monotonic() - started
    with capsys.disabled():
        codes = sorted((k[5:], v) for k, v in stats.items() if str(k).startswith("code "))
        print(
            f"\ntool fuzz: {len(tools)} tools, {stats['calls']} calls in {elapsed:.0f} s, {stats['ok']} ok, "
            f"{stats['refused']} refused, {len(crashes)} crashed or without code, "
            f"{len(half_written)} half-written; refusal codes {codes}"
        )
    assert crashes == [] and half_written == [], "\n".join(crashes[:40] + half_written[:20])
