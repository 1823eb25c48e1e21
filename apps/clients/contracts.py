"""The typed contract of the Mandanten operations (input and output models)."""

from __future__ import annotations

from apps.core.contracts import Output


class ClientRef(Output):
    """How a task, calendar entry or document names its Mandant (enough to show and link it)."""

    id: int
    name: str
    client_number: str
    url: str
