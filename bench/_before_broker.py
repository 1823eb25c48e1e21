"""bench/jobs.py's "before" worker (`celery worker --include bench._before_broker`): the database
broker as it was before it waited on acknowledgements, i.e. kombu's loop that sleeps its fixed
`polling_interval` (1 s) whenever a poll returns nothing or the prefetch limit is reached."""

from kombu.transport import virtual

from clapilot import broker

broker.Transport.drain_events = virtual.Transport.drain_events  # type: ignore[method-assign]
broker.Transport.polling_interval = 1.0
