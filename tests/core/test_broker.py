"""The database broker's leases (clapilot/broker.py), through real kombu connections on the test
database: a live consumer keeps its message however long the job runs, a dead one's message goes
to the next consumer after the visibility timeout, an acknowledged message is gone, and a message
whose consumers die every time is dropped after `max_deliveries`."""

from __future__ import annotations

import logging
import time
import uuid

import pytest
from django.db import connection
from kombu import Connection

from clapilot import broker

pytestmark = pytest.mark.django_db(transaction=True)

LEASE = 0.6


@pytest.fixture
def queue():
    return f"lease-{uuid.uuid4().hex[:8]}"


def _connection(**options) -> Connection:
    return Connection(
        broker.url_for(connection.settings_dict),
        transport_options={"visibility_timeout": LEASE, "max_deliveries": 3, **options},
    )


def _rows(queue: str) -> list[tuple[bool, str]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT m.visible, m.payload FROM kombu_message m JOIN kombu_queue q ON q.id = m.queue_id "
            "WHERE q.name = %s",
            [queue],
        )
        return cur.fetchall()


def _die(channel) -> None:
    """What SIGKILL does to a consumer: no acknowledgement, no restore, no lease renewal."""
    channel._stop_renewing.set()
    channel.qos.restore_at_shutdown = False


def test_leases_keep_a_live_consumers_message_and_free_a_dead_ones(queue):
    with _connection() as producer, _connection() as first, _connection() as second:
        producer.default_channel.queue_declare(queue)
        producer.default_channel.basic_publish(
            producer.default_channel.prepare_message("job"), exchange="", routing_key=queue
        )
        taken = first.default_channel.basic_get(queue)
        assert taken is not None and taken.body == b"job"

        time.sleep(4 * LEASE)  # a long job: the lease is renewed, nobody else gets the message
        assert second.default_channel.basic_get(queue) is None

        _die(first.default_channel)
        time.sleep(2 * LEASE)
        again = second.default_channel.basic_get(queue)
        assert again is not None and again.body == b"job"
        assert again.properties[broker.DELIVERIES] == 2
        again.ack()
        assert _rows(queue) == []
        time.sleep(2 * LEASE)
        assert second.default_channel.basic_get(queue) is None


def test_a_message_whose_consumers_always_die_is_dropped(queue, caplog):
    caplog.set_level(logging.ERROR, logger="clapilot.broker")
    with _connection() as producer:
        producer.default_channel.queue_declare(queue)
        producer.default_channel.basic_publish(
            producer.default_channel.prepare_message("poison"), exchange="", routing_key=queue
        )
    deliveries = 0
    for _attempt in range(5):
        with _connection() as consumer:
            message = consumer.default_channel.basic_get(queue)
            if message is None:
                break
            deliveries += 1
            _die(consumer.default_channel)
        time.sleep(1.5 * LEASE)
    assert deliveries == 3
    assert _rows(queue) == []
    assert "dropped: its worker died in each of 3 deliveries" in caplog.text


def test_a_requeue_after_a_lost_worker_counts_and_replaces_the_row(queue):
    with _connection() as conn:
        channel = conn.default_channel
        channel.queue_declare(queue)
        channel.basic_publish(channel.prepare_message("job"), exchange="", routing_key=queue)
        for delivery in (1, 2, 3):
            message = channel.basic_get(queue)
            assert message is not None and message.properties.get(broker.DELIVERIES, 1) == delivery
            assert len(_rows(queue)) == 1
            message.reject(requeue=True)  # what reject_on_worker_lost does
        assert _rows(queue) == []  # the third loss dropped it


def test_an_acknowledgement_wakes_a_consumer_held_back_by_its_prefetch_limit(queue):
    """kombu slept its polling interval (1 s) whenever the prefetch limit was reached, whatever the
    jobs took: about two jobs a second with two pool processes. An acknowledgement now wakes the
    waiting consumer, which takes the next message at once."""
    with _connection() as producer, _connection(polling_interval=30) as consumer:
        producer.default_channel.queue_declare(queue)
        for body in ("one", "two"):
            producer.default_channel.basic_publish(
                producer.default_channel.prepare_message(body), exchange="", routing_key=queue
            )
        got = []
        channel = consumer.default_channel
        channel.basic_qos(prefetch_count=1)
        channel.basic_consume(queue, False, got.append, "test")
        consumer.drain_events(timeout=10)
        assert [m.body for m in got] == [b"one"]
        assert not channel.qos.can_consume()  # held back until "one" is acknowledged
        consumer.transport._wakeup.clear()
        got[0].ack()
        assert consumer.transport._wakeup.is_set()
        consumer.drain_events(timeout=10)
        assert [m.body for m in got] == [b"one", b"two"]
        got[1].ack()
        assert _rows(queue) == []
