"""The Kanzlei settings page: typed settings stored where their readers look (Bundesland,
numbering schemes, office name and address, default chat model), bad values as field errors,
inviting a colleague with a set-password link; office admins only."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from apps.clients import numbering, services
from apps.clients.contracts import CaseCreate, ClientCreate
from apps.clients.office_settings import OFFICE_ADDRESS, OFFICE_NAME
from apps.core.inputs import build
from apps.core.services import get_setting
from apps.deadlines import office
from apps.llm import selection
from apps.llm.models import ModelConfig, Provider
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
URL = "/einstellungen/kanzlei/"


@pytest.fixture
def chefin(db):
    # Role admin and nothing else: the role alone opens the page.
    return UserFactory(email="chefin@kanzlei.example", full_name="Clara Chef", role="admin")


@pytest.fixture
def models(db):
    provider = Provider.objects.create(name="Kanzlei-Server", base_url="http://llm.example/v1")
    small = ModelConfig.objects.create(provider=provider, model_id="small", display_name="Klein")
    large = ModelConfig.objects.create(provider=provider, model_id="large", display_name="Groß")
    return small, large


def _valid(**changes):
    values = {
        "office_name": "Kanzlei Berger & Partner",
        "office_address": "Leopoldstr. 1\n80802 München",
        "bundesland": "BY",
        "client_prefix": "M-",
        "client_start": "100",
        "client_width": "4",
        "case_prefix": "{JJJJ}/",
        "case_start": "1",
        "case_width": "3",
        "default_model_id": "",
    }
    return {**values, **changes}


def test_the_admin_stores_every_setting_where_its_reader_looks(client, chefin, models, as_anna, meier):
    _small, large = models
    client.force_login(chefin)
    page = client.get(URL)
    body = page.content.decode()
    assert page.status_code == 200 and "Kanzlei-Einstellungen" in body
    assert '<option value="BY">Bayern</option>' in body and "Groß" in body
    response = client.post(URL, _valid(default_model_id=str(large.pk)))
    assert response.status_code == 302, response.context["form"].errors
    assert get_setting(OFFICE_NAME) == "Kanzlei Berger & Partner"
    assert get_setting(OFFICE_ADDRESS) == "Leopoldstr. 1\n80802 München"
    assert get_setting(office.SETTING_KEY) == "BY" and office.office_state() == "BY"
    assert selection.default_model() == large
    assert get_setting(numbering.CLIENTS.setting_key) == {"prefix": "M-", "start": 100, "width": 4}
    assert services.create_client(as_anna, build(ClientCreate, name="Neu")).client_number == "M-0100"
    case = services.create_case(as_anna, build(CaseCreate, client_id=meier.pk, subject="Einspruch"))
    assert case.reference.endswith("/001") and case.reference[:4].isdigit()
    again = client.get(URL).content.decode()
    assert 'value="M-"' in again and '<option value="BY" selected>' in again


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("bundesland", "XX"),
        ("client_width", "0"),
        ("client_start", "zehn"),
        ("case_prefix", "<script>"),
        ("default_model_id", "999999"),
        ("office_name", "x" * 201),
    ],
)
def test_bad_values_are_errors_on_their_field(client, chefin, models, field, value):
    client.force_login(chefin)
    before = get_setting(numbering.CLIENTS.setting_key)
    response = client.post(URL, _valid(**{field: value}))
    assert response.status_code == 200
    assert field in response.context["form"].errors
    assert get_setting(numbering.CLIENTS.setting_key) == before  # nothing stored
    assert get_setting(OFFICE_NAME) is None


def test_a_bad_scheme_is_refused_on_its_prefix(client, chefin):
    client.force_login(chefin)
    response = client.post(URL, _valid(client_prefix="M 1"))
    assert response.status_code == 200 and "client_prefix" in response.context["form"].errors
    assert get_setting(numbering.CLIENTS.setting_key) == numbering.CLIENTS.default


def test_staff_get_a_403_page_that_says_why(client, anna):
    client.force_login(anna)
    for response in (client.get(URL), client.post(URL, _valid()), client.post(URL + "einladen/", {})):
        assert response.status_code == 403
        assert "Nur Administratorinnen und Administratoren" in response.content.decode()
    assert get_setting(OFFICE_NAME) is None


def test_the_settings_page_links_it_for_admins_only(client, chefin, anna):
    client.force_login(chefin)
    assert URL in client.get(reverse("settings")).content.decode()
    client.force_login(anna)
    assert URL not in client.get(reverse("settings")).content.decode()


def test_invite_a_colleague_with_a_set_password_link(client, chefin):
    client.force_login(chefin)
    response = client.post(
        URL + "einladen/", {"full_name": "Tom Weber", "email": "Tom@Kanzlei.example", "role": "staff"}
    )
    body = response.content.decode()
    assert response.status_code == 200
    tom = get_user_model().objects.get(email="tom@kanzlei.example")
    assert tom.full_name == "Tom Weber" and tom.role == "staff" and not tom.has_usable_password()
    link = response.context["invite_link"]
    assert link.startswith("http://testserver/accounts/reset/") and link in body
    client.logout()
    form = client.get(link, follow=True)
    assert form.status_code == 200 and form.context["validlink"]
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "ein-langes-Passwort-42", "new_password2": "ein-langes-Passwort-42"},
    )
    assert done.status_code == 302
    tom.refresh_from_db()
    assert tom.check_password("ein-langes-Passwort-42")


def test_invite_refuses_a_taken_or_bad_address(client, chefin, anna):
    client.force_login(chefin)
    taken = client.post(URL + "einladen/", {"full_name": "Anna", "email": anna.email, "role": "staff"})
    assert taken.status_code == 200 and "email" in taken.context["invite"].errors
    bad = client.post(URL + "einladen/", {"full_name": "X", "email": "kein-at", "role": "chef"})
    assert {"email", "role"} <= set(bad.context["invite"].errors)
    assert get_user_model().objects.count() == 2
