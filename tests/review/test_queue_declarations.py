"""The review app hosts the queues the domains declare (`review.queues`); it names no domain."""

from pathlib import Path

import pytest
from django.apps import apps

from apps.accounts.principal import Principal
from apps.core import plugins
from apps.core.review_queues import POINT, QueueKind
from apps.review import checks, services

REVIEW = Path(apps.get_app_config("review").path)


def test_the_queues_come_from_their_owners_declarations_in_tab_order():
    five = ["memory", "conflict", "learning", "curator", "wiki"]
    # Another app may add a queue of its own; the domains' five keep their order.
    assert [k.key for k in services.queues() if k.key in five] == five
    owners = {k.key: type(k).__module__ for k in services.queues()}
    assert owners["memory"] == owners["conflict"] == "apps.memory.review_queue"
    assert owners["learning"] == owners["curator"] == "apps.learning.review_queue"
    assert owners["wiki"] == "apps.wiki.review_queue"
    assert all(isinstance(k, QueueKind) for k in plugins.contributions(POINT))


def test_the_review_app_names_no_domain_whose_queue_it_hosts():
    # The memory page still lives here (it reads apps.memory); the queues do not.
    source = "\n".join(
        p.read_text() for p in REVIEW.glob("*.py") if p.name not in {"memory_page.py", "forms.py"}
    )
    for domain in ("memory", "learning", "wiki"):
        assert f"apps.{domain}" not in source.replace(f"apps.{domain}.review_queue", "")
    assert not (REVIEW / "kinds").exists()


class Extra(QueueKind):
    key = "extra"
    label = "Extra"
    order = 1
    topic = "extra"
    template = log_template = "review/kinds/wiki.html"

    def allowed(self, principal):
        return principal.user is not None and principal.user.email == "extra@kanzlei.example"

    def pending(self, principal, f, *, limit, offset):
        return [], 7

    def decided(self, principal, f, *, limit, offset):
        return [], 0

    def decide_one(self, principal, item_id, decision, text, note):
        pass


@pytest.fixture
def extra_queue(monkeypatch):
    queue = Extra()
    real = plugins.contributions
    monkeypatch.setattr(
        plugins, "contributions", lambda point: (*real(point), queue) if point == POINT else real(point)
    )
    return queue


@pytest.mark.django_db
def test_a_declared_queue_is_hosted_with_its_own_right_and_opens_the_shared_ones(extra_queue):
    from tests.factories import UserFactory

    person = Principal.for_user(UserFactory(email="extra@kanzlei.example"))
    kinds = services.kinds_for(person)
    # Its own queue first (order 1), then the queues open to every reviewer (wiki …), nothing else.
    shared = [k.key for k in services.queues() if k.open_to_reviewers]
    assert "wiki" in shared and [k.key for k in kinds] == ["extra", *shared]
    assert services.waiting_count(person.user) == 7 + sum(k.count(person) for k in kinds[1:] if k.waiting)
    assert "extra" in services.queue_topics()
    other = Principal.for_user(UserFactory(email="other@kanzlei.example"))
    assert services.kinds_for(other) == []


def test_two_queues_with_one_key_fail_the_start_up_check(monkeypatch):
    assert checks.queue_keys() == []
    twin = Extra()
    twin.key = "wiki"
    real = plugins.contributions
    monkeypatch.setattr(
        plugins, "contributions", lambda point: (*real(point), twin) if point == POINT else real(point)
    )
    [error] = checks.queue_keys()
    assert error.id == "clapilot.E010" and "'wiki'" in error.msg
