"""Readable names for indexed paths. Documents index folder-id paths (`/12/34`); people want
"Kanzlei / Steuern". The apps whose paths hold ids name them through `knowledge.path_labels`
(`extends` on their `DomainApp`): callables taking a set of ids and answering id → name, one
query each. Unknown segments stay as they are."""

from __future__ import annotations

from collections.abc import Iterable

from apps.core import plugins

PATH_LABELS = "knowledge.path_labels"


def path_labels(paths: Iterable[str]) -> dict[str, str]:
    paths = {p for p in paths if p}
    ids = {int(seg) for p in paths for seg in p.strip("/").split("/") if seg.isdigit()}
    names: dict[int, str] = {}
    if ids:
        for labels in plugins.contributions(PATH_LABELS):
            names.update(labels(ids))
    return {
        p: " / ".join(names.get(int(seg), seg) if seg.isdigit() else seg for seg in p.strip("/").split("/"))
        for p in paths
    }
