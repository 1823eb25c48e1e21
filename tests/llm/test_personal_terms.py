"""The neutralization gate learns the office's personal data from the apps that hold it
(`llm.personal_terms`), never by reading their models itself; a provider that fails stops the
call instead of letting names through."""

from __future__ import annotations

import pytest

from apps.core import plugins
from apps.llm import neutralize
from apps.llm.neutralize import Gate
from tests.factories import ClientFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_clients_and_staff_declare_their_terms():
    declared = {f"{p.__module__}.{p.__name__}" for p in plugins.contributions(neutralize.PERSONAL_TERMS)}
    assert declared == {
        "apps.accounts.personal_terms.staff_terms",
        "apps.clients.personal_terms.client_terms",
    }


def test_the_gate_hides_what_the_providers_name():
    ClientFactory(
        name="Wendeberg Bau GmbH", kind="company", email="info@wendeberg.example", phone="030 1234567"
    )
    ClientFactory(name="Hubertus Quandel", kind="person", tax_number="21/815/08150")
    UserFactory(full_name="Petra Sauerbier", email="p.sauerbier@kanzlei.example")
    names = neutralize.office_names()
    assert ("MANDANT", "Wendeberg Bau GmbH") in names and ("MANDANT~", "Quandel") in names
    assert ("PERSON", "Petra Sauerbier") in names and ("PERSON~", "Sauerbier") in names
    assert ("MANDANT~", "GmbH") not in names  # a company's last word is no surname
    text = "Wendeberg Bau GmbH, Herr Quandel und Frau Sauerbier (p.sauerbier@kanzlei.example)"
    out = Gate.for_run(None).text(text)
    for real in ("Wendeberg", "Quandel", "Sauerbier"):
        assert real not in out


def test_a_client_who_also_works_in_the_office_stays_a_mandant(monkeypatch):
    def staff():
        yield "PERSON", "Anna Adler"

    def clients():
        yield "MANDANT", "Anna Adler"

    monkeypatch.setattr(plugins, "contributions", lambda point: (staff, clients))
    gate = Gate(neutralize.office_names())
    assert gate.text("Anna Adler ruft an") == "[MANDANT_1] ruft an"


def test_a_failing_provider_stops_the_gate(monkeypatch):
    def broken():
        raise RuntimeError("records unavailable")
        yield  # pragma: no cover

    monkeypatch.setattr(plugins, "contributions", lambda point: (broken,))
    with pytest.raises(RuntimeError):
        Gate.for_run(None)
