"""The worker's process pool on the database broker: Celery's prefork pool whose children cannot
wedge it by dying.

With a broker that has no event loop (kombu's SQLAlchemy transport, clapilot/broker.py) Celery
runs billiard's blocking `Pool`: all children read jobs from ONE shared pipe, and a child waiting
for its next job sits in `SimpleQueue.get_payload()`, i.e. `with inqueue._rlock:
reader.recv_bytes()` — holding the pipe's read lock, a process-shared semaphore. A semaphore has
no owner: when that idle child is SIGKILLed (the OOM killer, `kill -9`) the lock is never
released, every other child and every replacement blocks on it for ever, and the worker keeps
receiving messages that no child ever runs (warm shutdown hangs on the same lock). Killing the
child that is running a job is harmless, killing the one that waits holds the lock: about half
of the kills wedged the worker (issue #25; billiard#104 and billiard PR #457 describe the same
lock). Results go back through a second shared pipe whose write lock has the same flaw.

Here both locks are POSIX record locks (`fcntl.lockf`) on an unlinked temporary file: the kernel
releases a record lock when the process holding it dies, so the next child takes the lock and
the pool goes on. Redis has an event loop and uses Celery's AsynPool (one pipe per child, no
shared lock); this class only replaces the blocking pool.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time

from billiard.pool import Pool as BlockingPool
from celery.concurrency import prefork


class KernelLock:
    """A lock between processes that dies with its holder (a POSIX record lock on a private
    file). Processes only: threads of one process share a record lock, and the pool takes these
    locks in one thread per process (a child's main loop, the parent at shutdown)."""

    def __init__(self) -> None:
        with tempfile.TemporaryFile(prefix="clapilot-pool-lock-") as handle:  # unlinked at once
            self._fd = os.dup(handle.fileno())  # inherited by the children forked later

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool:
        if block and timeout is None:
            fcntl.lockf(self._fd, fcntl.LOCK_EX)
            return True
        deadline = time.monotonic() + ((timeout or 0.0) if block else 0.0)
        while True:
            try:
                fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except OSError:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.01)

    def release(self) -> None:
        fcntl.lockf(self._fd, fcntl.LOCK_UN)

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc_info) -> None:
        self.release()


class Pool(BlockingPool):
    def _setup_queues(self) -> None:
        super()._setup_queues()
        # Children: read the job pipe under _rlock, write the result pipe under _wlock.
        self._inqueue._rlock = KernelLock()
        self._outqueue._wlock = KernelLock()


class TaskPool(prefork.TaskPool):
    """`worker_pool` of the Celery app: prefork with the blocking pool above."""

    BlockingPool = Pool
