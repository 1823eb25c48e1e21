"""Live events of memory changes (`record_mutation`, in the writer's transaction).

Personal memory goes to its owner only, with the record. Office and specialist memory goes to
everyone as a refresh of the `memory` topic without content: a pending memory is not everybody's
to read, so each open page refetches what its viewer may see (the review queue, the memory page,
the navigation's review count).
"""

from __future__ import annotations

from apps.memory.contracts import MemoryOut
from apps.memory.models import Memory
from apps.mutations import actions
from apps.mutations.services import record_mutation

LIST = "memory"
TOPIC = "memory"


def changed(memory: Memory, topic: str) -> None:
    if memory.owner_id is not None:
        record_mutation(
            audience="user",
            user=memory.owner,
            topic=topic,
            ui_actions=[
                actions.upsert(LIST, str(memory.pk), MemoryOut.record(memory)) | {"announce_key": topic}
            ],
            refresh_topic=TOPIC,
        )
        return
    record_mutation(
        audience="all", topic=topic, ui_actions=[actions.reload_topic(TOPIC)], refresh_topic=TOPIC
    )


def forgotten(user, *memory_ids: int) -> None:
    record_mutation(
        audience="user",
        user=user,
        topic="memory.memory.forgotten",
        ui_actions=[actions.remove(LIST, str(pk)) for pk in memory_ids[:200]]
        or [actions.reload_topic(TOPIC)],
        refresh_topic=TOPIC,
    )
