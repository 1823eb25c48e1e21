"""Folders build exactly the records the old hand-written builder did (kept here as the
reference, byte for byte): shared, personal (home), nested and client folders."""

import json

import pytest

from apps.clients.records import client_ref
from apps.core.records import attrs
from apps.documents import folders
from apps.documents.contracts import FolderOut

pytestmark = pytest.mark.django_db


# --- the builder of apps/documents/records.py before the conversion ----------------------------
def folder_record(folder) -> dict:
    return {
        "id": folder.pk,
        **attrs(folder, "name", "parent_id", "kind", "owner_id", "is_home"),
        "path": folder.tree_path,
        "depth": folder.depth,
        "client": client_ref(folder.client) if folder.client_id else None,
        "version": folder.version,
    }


def test_folders_in_every_shape(as_anna, meier):
    top = folders.create_folder(as_anna, name="Mandanten")
    nested = folders.create_folder(as_anna, name="Meier", parent_id=top.pk, client_id=meier.pk)
    home = folders.ensure_home_folder(as_anna)
    for folder in (top, nested, home):
        same = json.dumps(FolderOut.record(folder), ensure_ascii=False)
        assert same == json.dumps(folder_record(folder), ensure_ascii=False)
    listed = folders.list_folders(as_anna)
    assert len(listed) >= 3
    for folder in listed:
        assert json.dumps(FolderOut.record(folder)) == json.dumps(folder_record(folder))
