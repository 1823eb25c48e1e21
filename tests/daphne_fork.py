"""A daphne preloaded once, forked for each server a test starts (tests/live.py, `preloaded=True`).

Run as `python -m tests.daphne_fork` with the environment the servers get (except PGAPPNAME, which
names each one). It imports the project as daphne would (`clapilot.asgi`: Django set up, every
app and its models, the ASGI application; ~5 CPU-seconds, the bulk of a daphne's start), closes
its database connections, and then forks a child per request: the child redirects its output to
the request's log, sets its PGAPPNAME and runs daphne's command line in-process. A forked child
starts in a fraction of a second and knows nothing of the children before it (no cache, no
connection, no request of theirs): each test still gets a server process of its own.

Held back until the fork: `daphne.server`, which Django's app registry imports (daphne's app
config) and which installs Twisted's asyncio reactor on a new event loop. A loop created here
would share its epoll instance with every child (events of one child's sockets reported to
another's); each child creates its own.

Protocol (one JSON object a line): stdin takes {"args": [...], "log": path, "env": {...}} (a value
of null removes a variable); stdout answers {"pid": n} (or {"error": text}) for each, and
{"exit": pid, "code": n} (a Popen returncode: -signal when killed) when a child has ended. When
stdin closes (the test process is gone) the children are killed and this process exits.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.util
import json
import os
import select
import signal
import sys
import traceback
import types

HELD_BACK = "daphne.server"
# The project as daphne serves it, and what daphne.server imports (Twisted, autobahn) without
# installing a reactor.
PRELOADED = (
    "clapilot.asgi",
    "daphne.endpoints",
    "daphne.http_protocol",
    "daphne.ws_protocol",
    "twisted.internet.asyncioreactor",
    "twisted.internet.endpoints",
    "twisted.logger",
    "twisted.web.http",
)


def preload() -> None:
    sys.modules[HELD_BACK] = types.ModuleType(HELD_BACK)  # what daphne/apps.py imports
    try:
        for module in PRELOADED:
            importlib.import_module(module)
    finally:
        del sys.modules[HELD_BACK]
        import daphne

        if isinstance(getattr(daphne, "server", None), types.ModuleType):
            del daphne.server
    if "twisted.internet.reactor" in sys.modules:
        raise RuntimeError("a Twisted reactor was installed before the fork")
    warm()
    from django.db import connections

    connections.close_all()
    gc.collect()
    gc.freeze()  # the preloaded objects stay shared with the children (no copy-on-write by gc)


def warm() -> None:
    """What every server's first request would load itself (no query, no state of a request):
    the URL patterns and the translation catalogs."""
    from django.conf import settings
    from django.urls import get_resolver
    from django.utils import translation

    get_resolver().reverse_dict  # noqa: B018  (imports every urls module, fills the lookups)
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Anmelden")
    translation.deactivate()


def run_child(request: dict, wakeup: tuple[int, int]) -> None:
    """In the forked child: never returns."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in wakeup:
            os.close(fd)
        log = os.open(request["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.close(null)
        for key, value in request.get("env", {}).items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        # what `python -m daphne` has (its __main__ would run the command line on import)
        sys.argv = [importlib.util.find_spec("daphne.__main__").origin, *request["args"]]
        from daphne.cli import CommandLineInterface

        CommandLineInterface().run(request["args"])
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def serve() -> None:
    wakeup = os.pipe()
    for fd in wakeup:
        os.set_blocking(fd, False)
    signal.set_wakeup_fd(wakeup[1])
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: set[int] = set()

    def answer(message: dict) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def reap() -> None:
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            children.discard(pid)
            answer({"exit": pid, "code": os.waitstatus_to_exitcode(status)})

    answer({"ready": os.getpid()})
    pending = b""
    while True:
        readable, _, _ = select.select([0, wakeup[0]], [], [])
        if wakeup[0] in readable:
            try:
                while os.read(wakeup[0], 512):
                    pass
            except BlockingIOError:
                pass
            reap()
        if 0 not in readable:
            continue
        data = os.read(0, 65536)
        if not data:
            break
        pending += data
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            request = json.loads(line)
            sys.stdout.flush()
            sys.stderr.flush()
            try:
                pid = os.fork()
            except OSError as error:
                answer({"error": str(error)})
                continue
            if pid == 0:
                run_child(request, wakeup)
            children.add(pid)
            answer({"pid": pid})
    for pid in children:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for pid in list(children):
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clapilot.settings")
    preload()
    serve()
