"""The mobile REST API under /api/v1/notes/ (device tokens, the same services)."""

import pytest

from apps.notes.models import Note, NotePage
from tests.factories import device_client

pytestmark = pytest.mark.django_db


def client_for(user):
    return device_client(user)


@pytest.fixture
def api(anna):
    return client_for(anna)


def test_folder_note_and_page_lifecycle(api):
    folder = api.post("/api/v1/notes/folders/", {"name": "Mandanten"}, format="json")
    assert folder.status_code == 201, folder.content
    fid = folder.json()["folder"]["id"]
    assert api.get("/api/v1/notes/folders/").json()["folders"][0]["name"] == "Mandanten"
    renamed = api.patch(f"/api/v1/notes/folders/{fid}", {"name": "Mandantschaft"}, format="json")
    assert renamed.json()["folder"]["name"] == "Mandantschaft"

    created = api.post(
        "/api/v1/notes/",
        {"name": "Telefonat", "folder_id": fid, "html": "<p>Hallo<script>x</script></p>"},
        format="json",
    )
    assert created.status_code == 201, created.content
    note, first = created.json()["note"], created.json()["page"]
    assert first["html"] == "<p>Hallo</p>" and note["visibility"] == "shared"
    nid = note["id"]

    page = api.post(f"/api/v1/notes/{nid}/pages", {"title": "Zwei", "text": "Rückruf"}, format="json")
    assert page.status_code == 201
    pid = page.json()["page"]["id"]
    patched = api.patch(
        f"/api/v1/notes/pages/{pid}",
        {
            "audio_attachments": [{"id": "m1", "title": "Memo", "mime_type": "audio/mpeg"}],
            "expected_version": 1,
        },
        format="json",
    )
    assert patched.status_code == 200 and patched.json()["page"]["version"] == 2
    stale = api.patch(f"/api/v1/notes/pages/{pid}", {"title": "alt", "expected_version": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["code"] == "version_conflict"
    assert stale.json()["details"]["page"]["version"] == 2

    detail = api.get(f"/api/v1/notes/{nid}").json()
    assert [p["title"] for p in detail["pages"]] == ["", "Zwei"]
    assert len(api.get(f"/api/v1/notes/{nid}/pages").json()["pages"]) == 2
    moved = api.patch(f"/api/v1/notes/{nid}", {"folder_id": None, "name": "Telefonat Meier"}, format="json")
    assert moved.json()["note"]["folder_id"] is None
    assert api.delete(f"/api/v1/notes/pages/{pid}").status_code == 204
    assert api.delete(f"/api/v1/notes/{nid}").status_code == 204
    assert api.get(f"/api/v1/notes/{nid}").status_code == 404
    assert api.delete(f"/api/v1/notes/folders/{fid}").status_code == 204


def test_list_filters_search_and_pagination(api, shared_folder, make_note):
    for i in range(5):
        make_note(f"Meier {i}", folder=shared_folder)
    make_note("Schulz")
    data = api.get("/api/v1/notes/", {"limit": 2, "offset": 2, "folder": shared_folder.pk}).json()
    assert data["total"] == 5 and len(data["notes"]) == 2 and data["notes"][0]["page_count"] == 1
    assert api.get("/api/v1/notes/", {"q": "schulz"}).json()["total"] == 1


@pytest.mark.parametrize(
    ("method", "url", "body", "status", "code"),
    [
        ("post", "/api/v1/notes/", {}, 400, "invalid_request"),
        ("post", "/api/v1/notes/", {"name": "x", "folder_id": 987654}, 404, "note_folder_not_found"),
        ("post", "/api/v1/notes/folders/", {"name": "x", "visibility": "öffentlich"}, 400, "invalid_request"),
        ("get", "/api/v1/notes/987654", None, 404, "note_not_found"),
        ("get", "/api/v1/notes/pages/987654", None, 404, "note_page_not_found"),
        ("get", "/api/v1/notes/?limit=0", None, 400, "invalid_request"),
    ],
)
def test_bad_requests_have_stable_codes(api, method, url, body, status, code):
    response = getattr(api, method)(url, body, format="json") if body is not None else api.get(url)
    assert response.status_code == status, response.content
    assert response.json()["code"] == code
    assert not Note.objects.exists()


def test_bad_page_structure_is_a_field_error(api, make_note):
    page = make_note("x").pages.get()
    response = api.patch(
        f"/api/v1/notes/pages/{page.pk}", {"audio_attachments": [{"title": "ohne id"}]}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"
    assert "audio_attachments[0].id" in response.json()["details"]["field_errors"]
    assert NotePage.objects.get().version == 1


def test_another_persons_private_note_is_invisible(private_note, ben):
    other = client_for(ben)
    page = private_note.pages.get()
    assert other.get(f"/api/v1/notes/{private_note.pk}").status_code == 404
    assert other.patch(f"/api/v1/notes/{private_note.pk}", {"name": "x"}, format="json").status_code == 404
    assert other.delete(f"/api/v1/notes/{private_note.pk}").status_code == 404
    assert other.get(f"/api/v1/notes/pages/{page.pk}").status_code == 404
    assert (
        other.patch(f"/api/v1/notes/pages/{page.pk}", {"html": "<p>x</p>"}, format="json").status_code == 404
    )
    assert other.get("/api/v1/notes/").json()["total"] == 0
    assert Note.objects.get().name == "Annas Geheimnis"


def test_unauthenticated_requests_are_refused(client):
    assert client.get("/api/v1/notes/").status_code in (401, 403)
