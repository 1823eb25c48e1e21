import pytest

from apps.accounts.principal import Principal
from apps.tasks.models import Board, Task, TaskStatus
from apps.tools.context import ToolContext
from tests.factories import ServicePrincipalFactory, UserFactory


@pytest.fixture
def statuses(db):
    rows = [
        ("offen", "Offen", "open"),
        ("in_arbeit", "In Arbeit", "in_progress"),
        ("wiedervorlage", "Wiedervorlage", "waiting"),
        ("erledigt", "Erledigt", "done"),
    ]
    return {
        key: TaskStatus.objects.create(key=key, name=name, category=cat, sort_order=i)
        for i, (key, name, cat) in enumerate(rows)
    }


@pytest.fixture
def anna(db):
    return UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")


@pytest.fixture
def ben(db):
    return UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")


@pytest.fixture
def shared_board(db):
    return Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)


@pytest.fixture
def private_board(anna):
    return Board.objects.create(name="Annas Board", visibility=Board.Visibility.PRIVATE, owner=anna)


@pytest.fixture
def as_anna(anna):
    return Principal.for_user(anna)


@pytest.fixture
def as_ben(ben):
    return Principal.for_user(ben)


@pytest.fixture
def as_robot(db):
    return Principal.for_service(ServicePrincipalFactory(name="Morgen-Briefing"))


@pytest.fixture
def anna_ctx(as_anna):
    return ToolContext(principal=as_anna)


@pytest.fixture
def make_task(statuses, shared_board):
    def make(title="Aufgabe", board=None, status="offen", **fields):
        return Task.objects.create(
            title=title, board=board or shared_board, status=statuses[status], **fields
        )

    return make
