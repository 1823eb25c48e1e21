"""Readable names for indexed paths. Documents index folder-id paths (`/12/34`); people want
"Kanzlei / Steuern". Resolved in one query; unknown segments stay as they are."""

from __future__ import annotations

from collections.abc import Iterable


def path_labels(paths: Iterable[str]) -> dict[str, str]:
    paths = {p for p in paths if p}
    ids = {int(seg) for p in paths for seg in p.strip("/").split("/") if seg.isdigit()}
    names: dict[int, str] = {}
    if ids:
        try:
            from apps.documents.models import Folder
        except ImportError:  # the documents app is optional for the store
            Folder = None
        if Folder is not None:
            names = dict(Folder.objects.filter(pk__in=ids).values_list("pk", "name"))
    return {
        p: " / ".join(names.get(int(seg), seg) if seg.isdigit() else seg for seg in p.strip("/").split("/"))
        for p in paths
    }
