"""The clients app's personal data for the neutralization gate (`llm.personal_terms`): each
client's name (a person's surname on its own, too), e-mail, phone and tax number. Read fresh for
every gate; the gate decides what to do with them."""

from __future__ import annotations

from collections.abc import Iterator

from apps.clients.models import Client


def client_terms() -> Iterator[tuple[str, str]]:
    rows = Client.objects.values_list("name", "kind", "email", "phone", "tax_number")
    for name, kind, email, phone, tax_number in rows:
        yield "MANDANT", name
        parts = name.split()
        if kind == Client.Kind.PERSON and len(parts) > 1:
            yield "MANDANT~", parts[-1]
        yield "EMAIL", email
        yield "TELEFON", phone
        yield "STEUERNUMMER", tax_number
