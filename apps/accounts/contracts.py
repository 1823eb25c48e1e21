"""Output shapes of people, as every domain names them (assignee, author, responsible …)."""

from __future__ import annotations

from apps.core.contracts import Output


class PersonRef(Output):
    id: int
    name: str
    email: str


def person_ref(user) -> dict | None:
    return {"id": user.pk, "name": user.get_full_name(), "email": user.email} if user else None
