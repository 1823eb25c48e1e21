"""Forms of the Aufgaben pages. They validate through the operations' input models
(`InputModelForm`); `apps.tasks.services` takes the validated model and writes."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.core.surfaces.forms import BaselineEditor, BoundedDateField, InputModelForm
from apps.tasks.contracts import BoardCreate, TaskCreate, TaskUpdate
from apps.tasks.models import DESCRIPTION_MAX, TITLE_MAX, Board, Task, TaskStatus

# The detail editor's fields that name another row (a choice of visible rows) → TaskUpdate's field.
RELATION_FIELDS = {
    "status": "status_id",
    "board": "board_id",
    "assignee": "assignee_id",
    "client": "client_id",
    "case": "case_id",
}


class QuickAddForm(InputModelForm):
    """The board's "add a card" and the client page's "add a task": without board or status the
    task goes to the first shared board's first open column. Validated by `TaskCreate`, like the
    tool and the REST endpoint."""

    input_model = TaskCreate
    MODEL_FIELDS = {"board": "board_id", "status": "status_id", "client": "client_id", "case": "case_id"}

    title = forms.CharField(max_length=TITLE_MAX)
    board = forms.IntegerField(required=False)
    status = forms.IntegerField(required=False)
    client = forms.IntegerField(required=False)
    case = forms.IntegerField(required=False)


class BoardForm(InputModelForm):
    input_model = BoardCreate

    name = forms.CharField(label=_("Name"), max_length=120)
    visibility = forms.ChoiceField(
        label=_("Visibility"),
        choices=[
            (Board.Visibility.SHARED, _("Shared with everyone")),
            (Board.Visibility.PRIVATE, _("Private")),
        ],
    )


class TaskEditForm(BaselineEditor, InputModelForm):
    """The detail editor: only the fields the person changed are saved (see BaselineEditor), as
    a `TaskUpdate` validated like the tool's and the API's. Fields declared here carry the page's
    labels and choices; every other field of `TaskUpdate` is derived from the contract."""

    input_model = TaskUpdate
    MODEL_FIELDS = RELATION_FIELDS
    DERIVED_FIELDS = "__all__"
    NOT_DERIVED = frozenset({"clear_fields", "expected_version"})
    validated: TaskUpdate

    title = forms.CharField(label=_("Title"), max_length=TITLE_MAX)
    description = forms.CharField(
        label=_("Description"),
        max_length=DESCRIPTION_MAX,
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
    )
    status = forms.ChoiceField(label=_("Status"))
    board = forms.ChoiceField(label=_("Board"))
    assignee = forms.ChoiceField(label=_("Assigned to"), required=False)
    priority = forms.ChoiceField(label=_("Priority"), choices=Task.Priority.choices)
    due_date = BoundedDateField(
        label=_("Due"), required=False, widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    follow_up_date = BoundedDateField(
        label=_("Follow-up"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    client = forms.ChoiceField(label=_("Client"), required=False)
    case = forms.ChoiceField(label=_("Case"), required=False)

    def __init__(self, data=None, *, task: Task, boards, people, clients=(), cases=()):
        self.task = task
        super().__init__(data, initial=self.values_of(task))
        self.fields["status"].choices = [(str(s.pk), s.name) for s in TaskStatus.objects.all()]
        self.fields["board"].choices = [(str(b.pk), b.name) for b in boards]
        self.fields["assignee"].choices = [("", _("Nobody"))] + [
            (str(p.pk), p.get_full_name()) for p in people
        ]
        self.fields["client"].choices = [("", _("No client"))] + [(str(pk), label) for pk, label in clients]
        cases = list(cases)
        if task.case_id and task.case_id not in {pk for pk, _label in cases}:  # a closed case stays shown
            cases.append((task.case_id, f"{task.case.reference} {task.case.subject}"))
        self.fields["case"].choices = [("", _("No case"))] + [(str(pk), label) for pk, label in cases]
        self.add_baselines()

    @classmethod
    def values_of(cls, task: Task) -> dict[str, str]:
        """The task's current values as the form shows them (ids and dates as text, none as "")."""
        return {name: _shown(getattr(task, field)) for name, field in cls.EDITOR_FIELDS.items()}

    def model_values(self) -> dict[str, Any]:
        """What the person changed, as `TaskUpdate` fields (an emptied field as None)."""
        return self.changed_against_baseline()

    def empty_value(self, name: str):
        return "" if name == "description" else None


# Every field the editor saves: its declared ones and those derived from TaskUpdate.
TaskEditForm.EDITOR_FIELDS = {
    name: RELATION_FIELDS.get(name, name)
    for name in [*TaskEditForm.base_fields, *TaskEditForm.derived_names()]
}


def _shown(value: Any) -> str:
    if value is None:
        return ""
    return value.isoformat() if isinstance(value, dt.date) else str(value)
