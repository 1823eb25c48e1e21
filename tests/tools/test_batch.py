"""The parallel policy: read-only batches run concurrently, anything writing runs in order."""

import threading

import pytest

from apps.core.models import InstanceSetting
from apps.tools.dispatcher import ToolCall, execute_batch
from tests.tools import sample_tools

pytestmark = pytest.mark.django_db(transaction=True)


def test_read_only_batch_really_runs_concurrently(ctx):
    sample_tools.BARRIER["barrier"] = threading.Barrier(3)
    calls = [ToolCall("testkit_meet", {"label": str(i)}) for i in range(3)]
    results = execute_batch(calls, ctx)
    assert [r.ok for r in results] == [True, True, True], [r.message for r in results]
    assert [r.output["label"] for r in results] == ["0", "1", "2"]  # call order kept
    assert len({r.output["thread"] for r in results}) == 3


def test_a_writing_call_makes_the_batch_sequential_in_order(ctx):
    sample_tools.BARRIER["barrier"] = threading.Barrier(2)
    calls = [
        ToolCall("testkit_write", {"key": "first"}),
        ToolCall("testkit_meet", {"label": "a"}),
        ToolCall("testkit_meet", {"label": "b"}),
        ToolCall("testkit_write", {"key": "second"}),
    ]
    results = execute_batch(calls, ctx)
    # sequential: the two meet calls can never meet at the barrier → they fail, in order
    assert [r.ok for r in results] == [True, False, False, True]
    keys = list(
        InstanceSetting.objects.filter(key__in=["first", "second"])
        .order_by("id")
        .values_list("key", flat=True)
    )
    assert keys == ["first", "second"]
