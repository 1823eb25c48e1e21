"""Bad input on the REST API is explained in the person's language (pydantic speaks English)."""

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "expected"),
    [("de", "höchstens 500 Zeichen"), ("it", "più di 500 caratteri"), ("en", "no more than 500 characters")],
)
def test_rest_field_errors_are_localized(anna, statuses, language, expected):
    api = APIClient()
    api.force_authenticate(anna)
    response = api.post(
        "/api/v1/tasks/",
        {"title": "ok", "source_url": "https://x.example/" + "x" * 500},
        format="json",
        headers={"Accept-Language": language},
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid_request"
    assert expected in response.json()["source_url"][0]


def test_unknown_messages_fall_back_to_pydantics_text():
    from apps.core.messages import validation_message

    assert validation_message({"type": "something_new", "msg": "Value error, nope"}) == "Value error, nope"
