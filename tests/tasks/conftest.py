import pytest

from apps.tasks.models import Board, Task


@pytest.fixture
def shared_board(db):
    return Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)


@pytest.fixture
def private_board(anna):
    return Board.objects.create(name="Annas Board", visibility=Board.Visibility.PRIVATE, owner=anna)


@pytest.fixture
def make_task(statuses, shared_board):
    def make(title="Aufgabe", board=None, status="offen", **fields):
        return Task.objects.create(
            title=title, board=board or shared_board, status=statuses[status], **fields
        )

    return make
