"""Pages read their query strings and small POSTs through input models (`web.query`,
`web.query_input`, `web.posted`), not by hand: what each converted view keeps doing."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.urls import reverse

from apps.calendar.contracts import FristenbuchExportQuery
from apps.core.errors import DateOutOfRange
from apps.core.surfaces import web


def test_query_input_leaves_out_unknown_and_empty_and_raises_for_bad_values():
    request = RequestFactory().get("/", {"since": "2026-01-02", "until": "", "page": "3"})
    period = web.query_input(request, FristenbuchExportQuery)
    assert (str(period.since), period.until) == ("2026-01-02", None)
    hand_edited = web.query_input(RequestFactory().get("/", {"since": "gestern"}), FristenbuchExportQuery)
    assert hand_edited.since is None  # no date: left out, as before
    with pytest.raises(DateOutOfRange) as refused:
        web.query_input(RequestFactory().get("/", {"until": "0001-01-01"}), FristenbuchExportQuery)
    assert set(refused.value.field_errors) == {"until"}


def test_the_export_ignores_a_hand_edited_day_and_refuses_one_out_of_range(web):
    url = reverse("calendar:fristenbuch-export", args=["csv"])
    assert web.get(url, {"since": "gestern", "until": "2026-01-31"}).status_code == 200
    response = web.get(url, {"since": "9999-01-01", "until": "kaputt"})
    assert response.status_code == 400 and response.json()["code"] == "date_out_of_range"


@pytest.mark.django_db
def test_the_language_switch_and_the_share_search_read_their_models(client, anna, ben):
    client.force_login(anna)
    response = client.post(reverse("switch-language"), {"language": "it", "next": "/"})
    assert response.status_code == 302
    anna.refresh_from_db()
    assert anna.language == "it" and response.cookies["django_language"].value == "it"
    client.post(reverse("switch-language"), {"language": "xx", "next": "/"})
    anna.refresh_from_db()
    assert anna.language == "it"  # not ours: Django's set_language, the profile unchanged
    found = client.get(reverse("share-search"), {"q": "  Ben ", "page": "2"}).json()["results"]
    assert [r["label"] for r in found if r["kind"] == "user"] == ["Ben Braun"]


def test_the_start_pages_prompt_is_trimmed_and_cut_as_before():
    from apps.dashboard.contracts import PROMPT_MAX, AskPrompt

    posted = RequestFactory().post("/", {"prompt": "  " + "x" * (PROMPT_MAX + 10) + " "})
    assert web.posted(posted, AskPrompt).prompt == "x" * PROMPT_MAX
    assert web.posted(RequestFactory().post("/", {"prompt": "  "}), AskPrompt).prompt == ""
    assert web.posted(RequestFactory().post("/", {}), AskPrompt).prompt == ""


def test_a_bulk_decision_reads_its_checkboxes_and_keeps_the_text_only_for_edit():
    from apps.core.errors import InvalidInput
    from apps.review.contracts import DecidePosted

    form = {"kind": "memory", "ids": ["3", "5"], "decision": "reject", "text": "x", "note": ""}
    data = web.posted_form(RequestFactory().post("/", form), DecidePosted)
    assert (data.ids, data.decision, data.text, data.note) == ([3, 5], "reject", None, "")
    edited = web.posted_form(
        RequestFactory().post("/", {**form, "decision": "edit", "text": ""}), DecidePosted
    )
    assert edited.text == ""  # an empty correction is the service's to refuse, as before
    assert (
        web.posted_form(RequestFactory().post("/", {"decision": "approve", "ids": "1"}), DecidePosted).kind
        == ""
    )
    with pytest.raises(InvalidInput) as none_chosen:
        web.posted_form(RequestFactory().post("/", {"kind": "memory", "decision": "approve"}), DecidePosted)
    assert "ids" in none_chosen.value.field_errors


@pytest.mark.django_db
def test_the_review_page_says_what_was_missing(client, boss):
    from django.utils import translation
    from django.utils.translation import gettext

    client.force_login(boss)
    url = reverse("review:decide")
    none = client.post(url, {"kind": "learning", "decision": "approve"}, follow=True)
    unreadable = client.post(url, {"kind": "learning", "ids": ["1"], "decision": "vielleicht"}, follow=True)
    with translation.override(boss.language):
        assert [str(m) for m in none.context["messages"]] == [gettext("Please select at least one item.")]
        expected = gettext("The decision could not be read; please try again.")
        assert [str(m) for m in unreadable.context["messages"]] == [expected]
