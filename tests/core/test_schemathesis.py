"""schemathesis over `/api/schema/`: every operation, as an admin's API key with every scope and
as a staff member's device token, with generated valid and invalid requests. No answer may be a
5xx, and every answer must be a status the document declares, in the shape it declares.

The app runs in-process (Django's WSGI handler) inside the test's transaction, over the demo
office (a few rows per domain, a chat session and run per principal, a model on the scripted
fake server). Path ids are drawn from those rows half of the time, so operations reach records;
otherwise schemathesis makes them up. Examples are bounded (`CLAPILOT_FUZZ_EXAMPLES` per
operation, principal and mode) and derandomized, so a run is repeatable; set
`CLAPILOT_FUZZ_RANDOM=1` to explore with fresh seeds.
"""

from __future__ import annotations

import collections
import contextlib
import os
import time
import types

import hypothesis
import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.fuzz,
    # Django's WSGI handler drains the SSE views' async iterators (daphne streams them).
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume asynchronous iterators"),
]

EXAMPLES = int(os.environ.get("CLAPILOT_FUZZ_EXAMPLES", "5"))
DERANDOMIZE = os.environ.get("CLAPILOT_FUZZ_RANDOM") != "1"
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]
MODES = [schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE]


@pytest.fixture
def in_process_app(monkeypatch):
    """Django's WSGI app inside the test's transaction: like Django's test client, requests do not
    close the connection when they start and end (that would end the transaction), and neither do
    the SSE views, which clean up after daphne's worker threads; their streams end at once."""
    import channels.db

    from apps.agent import sse
    from apps.core.realtime import sse as core_sse
    from apps.mutations import api as mutations_api

    monkeypatch.setattr(channels.db, "close_old_connections", lambda: None)
    for module in (sse, mutations_api):
        monkeypatch.setattr(module, "STREAM_MAX_SECONDS", 0)
    monkeypatch.setattr(core_sse, "connections", types.SimpleNamespace(close_all=lambda: None))
    django_app = get_wsgi_application()

    def app(environ, start_response):
        # A WSGI server closes what it sent (a file download's file, too); the test client
        # schemathesis uses does not.
        result = django_app(environ, start_response)
        try:
            return [b"".join(result)]
        finally:
            result.close()

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield app
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def office(db, fake_openai):
    from apps.accounts.models import User
    from apps.agent.models import ChatSession, Run
    from apps.core.services import set_setting
    from apps.llm.models import ModelConfig, Provider
    from apps.ops import demo

    admin = User.objects.create_superuser(email="chef@kanzlei.example", password="pw-123456789", role="admin")
    office = demo.load_once(admin, None)
    provider = Provider.objects.create(
        name="Fake", kind=Provider.Kind.OPENAI_COMPATIBLE, base_url=fake_openai.base_url, api_key="sk-test"
    )
    set_setting("default_chat_model", ModelConfig.objects.create(provider=provider, model_id="fake-model").pk)
    for user in (admin, office.users["anna"]):
        session = ChatSession.objects.create(user=user, title="Fuzz")
        Run.objects.create(session=session, user=session.user, status=Run.Status.COMPLETED)
    return office


@pytest.fixture
def principals(office):
    """The two callers: an admin's API key with every scope, a staff member's device token."""
    from apps.accounts.principal import Principal
    from apps.apikeys import services
    from apps.apikeys.models import Scope

    _key, key = services.create_api_key(
        Principal.for_user(office.admin), name="fuzz", scopes=list(Scope.values)
    )
    _token, token = services.issue_device_token(office.users["anna"], "fuzz phone")
    # Only these are offered to the revoking DELETEs: the caller's own token or key revoked early
    # would turn every later request into a 401.
    services.issue_device_token(office.users["anna"], "spare phone")
    services.create_api_key(Principal.for_user(office.admin), name="spare", scopes=["usage:read"])
    return {"api key": f"Bearer {key}", "device token": f"Token {token}"}


def _ids() -> dict[str, list[int]]:
    from apps.agent.models import ChatSession, Run
    from apps.apikeys.models import ApiKey, DeviceToken
    from apps.calendar.models import CalendarEvent
    from apps.clients.models import Case, Client
    from apps.documents.models import Document, Folder
    from apps.notes.models import Note, NoteFolder, NotePage
    from apps.tasks.models import Task
    from apps.widgets.models import Widget

    def pks(*models):
        rows = (model.objects.all() if hasattr(model, "objects") else model for model in models)
        return [pk for qs in rows for pk in qs.order_by("pk").values_list("pk", flat=True)[:6]]

    return {
        "task_id": pks(Task),
        "event_id": pks(CalendarEvent),
        "case_id": pks(Case),
        "client_id": pks(Client),
        "folder_id": pks(Folder, NoteFolder),
        "document_id": pks(Document),
        "note_id": pks(Note),
        "page_id": pks(NotePage),
        "widget_id": pks(Widget),
        "session_id": pks(ChatSession),
        "run_id": pks(Run),
        "token_id": pks(DeviceToken.objects.filter(device_name="spare phone")),
        "key_id": pks(ApiKey.objects.filter(name="spare")),
    }


def _fuzz(
    operation,
    authorization,
    ids,
    stats,
    failures,
    *,
    examples=EXAMPLES,
    checks=CHECKS,
    derandomize=DERANDOMIZE,
) -> None:
    """`examples` generated requests per mode; each answer checked, every failure collected as
    (label, status, kind, failure, text, case). An operation that refuses the caller outright
    (closed to API keys) is asked once. The broad sweep calls it with more examples and checks."""
    label = operation.label
    refused = []
    known = {p.name: ids[p.name] for p in operation.path_parameters if ids.get(p.name)}
    # Invalid data needs a query or a body to go in (a path parameter made invalid is just
    # another unknown URL, which the positive mode's made-up ids reach too); without one,
    # negative generation only rejects its own draws.
    takes_input = bool(operation.query or operation.body)
    plan = [(mode, examples) for mode in (MODES if takes_input else MODES[:1])]
    if authorization.startswith("Bearer"):  # an API key: first see whether the operation is open to it
        plan = [(MODES[0], 1), (MODES[0], examples - 1), *plan[1:]]
    for mode, examples in plan:
        if refused or not examples:
            return

        @hypothesis.settings(
            max_examples=examples,
            deadline=None,
            database=None,
            derandomize=derandomize,
            suppress_health_check=list(HealthCheck),
            phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
        )
        @given(
            case=operation.as_strategy(generation_mode=mode),
            path=st.fixed_dictionaries({name: st.sampled_from(values) for name, values in known.items()}),
            real=st.booleans(),
        )
        def probe(case, path, real):
            if real:
                case.path_parameters = {**(case.path_parameters or {}), **path}
            response = case.call(headers={"Authorization": authorization})
            stats["requests"] += 1
            stats[response.status_code] += 1
            if response.status_code == 403 and "api_key_endpoint_not_allowed" in response.text:
                refused.append(label)
            try:
                case.validate_response(response, checks=checks)
            except FailureGroup as group:
                for failure in group.exceptions:
                    failures.append(
                        (label, response.status_code, type(failure).__name__, failure, response.text, case)
                    )

        with contextlib.suppress(hypothesis.errors.Unsatisfiable):
            probe()


def test_every_operation_answers_as_documented(office, principals, in_process_app, capsys):
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", in_process_app)
    ids = _ids()
    stats: collections.Counter = collections.Counter()
    failures: list[tuple] = []
    started = time.monotonic()
    # Deletions last, so the records they remove were there for everything else; revoking a key
    # or token (maybe the caller's own: ids are made up too) at the very end.
    operations = sorted(
        (result.ok() for result in schema.get_all_operations()),
        key=lambda o: (o.method == "delete", o.path.startswith("/api/v1/auth/")),
    )
    for authorization in principals.values():
        for operation in operations:
            _fuzz(operation, authorization, ids, stats, failures)
    elapsed = time.monotonic() - started

    server_errors = sum(n for status, n in stats.items() if isinstance(status, int) and status >= 500)
    violations = sum(1 for f in failures if f[2] == "JsonSchemaError")
    statuses = {k: v for k, v in sorted(stats.items(), key=str) if isinstance(k, int)}
    with capsys.disabled():
        print(
            f"\nschemathesis: {len(operations)} operations × {len(principals)} principals, "
            f"{stats['requests']} requests in {elapsed:.0f} s, {server_errors} × 5xx, "
            f"{violations} schema violations, {len(failures)} failures; statuses {statuses}"
        )
    report = collections.Counter(f"{kind} {status} {label}" for label, status, kind, *_rest in failures)
    first = {}
    for label, status, kind, failure, text, _case in failures:
        first.setdefault((label, kind), f"{label} → {status} {kind}: {failure}\n{text[:300]}")
    assert not failures, "\n".join([*(f"{n:4d} {k}" for k, n in report.most_common()), *first.values()])
