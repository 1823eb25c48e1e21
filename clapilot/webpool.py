"""N daphne processes on one listening socket: every core serves HTTP and WebSockets.

The launcher (and bench/load.py, and the tests) open the socket once and hand it to each daphne as
an inherited file descriptor (`daphne --fd`). The kernel queues new connections on that one socket
and whichever process is free accepts the next, so a process that dies (or restarts) takes only
its own open connections with it: the others keep accepting, and the socket keeps queueing
connections even while none is up. Live events reach every process through the channel layer
(channels-postgres or Redis), never through process memory.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

BIN = Path(sys.executable).parent
ASGI_APPLICATION = "clapilot.asgi:application"
# The kernel's queue of connections not yet accepted; it is capped by net.core.somaxconn anyway.
BACKLOG = 1024


def web_processes(value: str | None = None) -> int:
    """CLAPILOT_WEB_PROCESSES: how many daphne processes serve; default the number of cores.
    ValueError with a sentence for anything but a whole number from 1 to 64."""
    raw = os.environ.get("CLAPILOT_WEB_PROCESSES", "") if value is None else value
    if not raw.strip():
        return max(1, os.cpu_count() or 1)
    try:
        count = int(raw)
    except ValueError:
        raise ValueError(f"CLAPILOT_WEB_PROCESSES must be a whole number, got {raw!r}.") from None
    if not 1 <= count <= 64:
        raise ValueError(f"CLAPILOT_WEB_PROCESSES must be between 1 and 64, got {count}.")
    return count


def open_listener(host: str, port: int) -> socket.socket:
    """The bound, listening socket the daphne processes share (inheritable, so a child started
    with pass_fds=[sock.fileno()] finds it under the same number). OSError if the port is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


def daphne_argv(sock: socket.socket, *, python: str | None = None, proxy_headers: bool = False) -> list[str]:
    """The command line of one daphne serving on `sock` (inherited under its own number).
    `python`: run daphne as `python -m daphne` (tests, benches) instead of the venv's script.
    `proxy_headers`: behind a proxy (deploy/nginx), the client's address is its X-Forwarded-For;
    never without one, where any client could name its own address."""
    if sock.family == socket.AF_INET6:
        # --fd means an IPv4 socket to Twisted; an IPv6 one needs the endpoint spelled out
        where = ["-e", f"fd:fileno={sock.fileno()}:domain=INET6"]
    else:
        where = ["--fd", str(sock.fileno())]
    command = [python, "-m", "daphne"] if python else [str(BIN / "daphne")]
    return [*command, *where, *(["--proxy-headers"] if proxy_headers else []), ASGI_APPLICATION]
