"""The human, localized name of a tool call in the chat ("Aufgabe anlegen", not `aufgaben_create_task`).

A tool's declared `label` wins; otherwise the name is humanized from its verb and object
(`<family>_<verb>[_<object>]`), the object defaulting to the family's record; a name that fits
neither reads "Tool: <name with spaces>". Labels are computed when shown, in the viewer's language.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.tools import registry

# The verb's phrase with the object's noun in it (word order differs between languages).
_VERBS = {
    "create": gettext_lazy("Create %(thing)s"),
    "add": gettext_lazy("Add %(thing)s"),
    "update": gettext_lazy("Update %(thing)s"),
    "delete": gettext_lazy("Delete %(thing)s"),
    "move": gettext_lazy("Move %(thing)s"),
    "get": gettext_lazy("Open %(thing)s"),
    "list": gettext_lazy("List %(things)s"),
    "search": gettext_lazy("Search %(things)s"),
    "grep": gettext_lazy("Search %(things)s"),
    "complete": gettext_lazy("Complete %(thing)s"),
    "cancel": gettext_lazy("Cancel %(thing)s"),
    "compute": gettext_lazy("Compute %(thing)s"),
    "revoke": gettext_lazy("Revoke %(thing)s"),
    "propose": gettext_lazy("Propose %(thing)s"),
    "store": gettext_lazy("Store %(thing)s"),
    "expand": gettext_lazy("Expand %(thing)s"),
    "describe": gettext_lazy("Describe %(thing)s"),
}

# Object words of tool names: (singular, plural).
_THINGS = {
    "task": (gettext_lazy("task"), gettext_lazy("tasks")),
    "board": (gettext_lazy("board"), gettext_lazy("boards")),
    "comment": (gettext_lazy("comment"), gettext_lazy("comments")),
    "status": (gettext_lazy("status"), gettext_lazy("statuses")),
    "event": (gettext_lazy("appointment"), gettext_lazy("appointments")),
    "deadline": (gettext_lazy("deadline"), gettext_lazy("deadlines")),
    "case": (gettext_lazy("case"), gettext_lazy("cases")),
    "client": (gettext_lazy("client"), gettext_lazy("clients")),
    "document": (gettext_lazy("document"), gettext_lazy("documents")),
    "folder": (gettext_lazy("folder"), gettext_lazy("folders")),
    "share": (gettext_lazy("share link"), gettext_lazy("share links")),
    "note": (gettext_lazy("note"), gettext_lazy("notes")),
    "page": (gettext_lazy("page"), gettext_lazy("pages")),
    "change": (gettext_lazy("change"), gettext_lazy("changes")),
    "object": (gettext_lazy("learning entry"), gettext_lazy("learning entries")),
    "memory": (gettext_lazy("memory"), gettext_lazy("memories")),
    "widget": (gettext_lazy("widget"), gettext_lazy("widgets")),
    "data": (gettext_lazy("widget data"), gettext_lazy("widget data")),
    "context": (gettext_lazy("context"), gettext_lazy("context")),
    "wiki": (gettext_lazy("wiki page"), gettext_lazy("wiki")),
    "learning": (gettext_lazy("learning entry"), gettext_lazy("learnings")),
}
_PLURALS = {"tasks": "task", "boards": "board", "statuses": "status", "events": "event",
            "deadlines": "deadline", "folders": "folder", "notes": "note", "pages": "page"}  # fmt: skip

# The record a family's tools work on when the name has no object (`cases_create`).
_FAMILY_THING = {
    "aufgaben": "task",
    "calendar": "event",
    "cases": "case",
    "mandanten": "client",
    "documents": "document",
    "notizen": "note",
    "wiki": "wiki",
    "memory": "memory",
    "learning": "learning",
    "context": "context",
    "widgets": "widget",
    "mini_apps": "widget",
}

# Tools whose names do not follow the pattern (declared in apps whose files the chat does not own).
_NAMED = {
    "tool_catalog_search": gettext_lazy("Look up tools"),
    "tool_catalog_expand": gettext_lazy("Look up tools"),
    "tool_execute": gettext_lazy("Run a tool"),
    "session_status": gettext_lazy("Check the session"),
    "clapilot_context_status": gettext_lazy("Check the context"),
}


def tool_label(name: str) -> str:
    declared = registry.get(name)
    if declared is not None and declared.label:
        return str(declared.label)
    if name in _NAMED:
        return str(_NAMED[name])
    return _humanized(name, declared.family if declared is not None else "")


def _humanized(name: str, family: str) -> str:
    rest = name[len(family) + 1 :] if family and name.startswith(f"{family}_") else name.partition("_")[2]
    family = family or name.partition("_")[0]
    verb, _sep, thing = rest.partition("_")
    thing = _PLURALS.get(thing, thing)
    key = thing or _FAMILY_THING.get(family, "")
    phrase = _VERBS.get(verb)
    nouns = _THINGS.get(key)
    if phrase is None or nouns is None:
        return _("Tool: %(name)s") % {"name": name.replace("_", " ")}
    singular, plural = nouns
    return str(phrase) % {"thing": singular, "things": plural}
