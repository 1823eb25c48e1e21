"""The accounts app's personal data for the neutralization gate (`llm.personal_terms`): the
names (the surname on its own, too) and e-mail addresses of the people with an account."""

from __future__ import annotations

from collections.abc import Iterator

from apps.accounts.models import User


def staff_terms() -> Iterator[tuple[str, str]]:
    for full_name, email in User.objects.values_list("full_name", "email"):
        yield "PERSON", full_name
        yield "EMAIL", email
        parts = full_name.split()
        if len(parts) > 1:
            yield "PERSON~", parts[-1]
