import pytest

from apps.accounts.principal import InactivePrincipal, Principal, PrincipalError
from tests.factories import ServicePrincipalFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_user_principal_scopes_to_the_user_and_is_the_author():
    user = UserFactory(language="it", time_zone="Europe/Rome")
    principal = Principal.for_user(user)
    assert principal.resource_scope.user_id == user.pk
    assert not principal.resource_scope.shared_only
    assert principal.audit_actor == user
    assert principal.language == "it"
    assert str(principal.time_zone) == "Europe/Rome"


def test_team_room_sees_shared_data_only_but_records_the_member_as_author():
    member = UserFactory()
    room = ServicePrincipalFactory(kind="team_room")
    principal = Principal.for_service(room, acting_user=member)
    assert principal.resource_scope.shared_only
    assert principal.resource_scope.user_id is None  # never borrows the member's private scope
    assert principal.audit_actor == member
    assert member.email in principal.audit_label or str(member) in principal.audit_label


def test_inactive_identities_cannot_act():
    with pytest.raises(InactivePrincipal):
        Principal.for_user(UserFactory(is_active=False))
    with pytest.raises(InactivePrincipal):
        Principal.for_service(ServicePrincipalFactory(is_active=False))


def test_unsaved_service_principal_is_refused():
    from apps.accounts.models import ServicePrincipal

    with pytest.raises(PrincipalError):
        Principal.for_service(ServicePrincipal(name="forged"))


def test_disabling_a_service_principal_takes_effect_immediately():
    sp = ServicePrincipalFactory()
    principal = Principal.for_service(sp)
    principal.refresh_active()
    type(sp).objects.filter(pk=sp.pk).update(is_active=False)
    with pytest.raises(InactivePrincipal):
        principal.refresh_active()


def test_principal_is_user_xor_service():
    with pytest.raises(ValueError):
        Principal()


def test_admin_action_disables_service_principals_at_once(client):
    from apps.accounts.models import ServicePrincipal, User

    sp = ServicePrincipalFactory()
    principal = Principal.for_service(sp)
    admin = User.objects.create_superuser("chef@kanzlei.example", "a-long-password-1")
    client.force_login(admin)
    response = client.post(
        "/admin/accounts/serviceprincipal/", {"action": "deactivate", "_selected_action": [sp.pk]}
    )
    assert response.status_code == 302
    assert not ServicePrincipal.objects.get(pk=sp.pk).is_active
    with pytest.raises(InactivePrincipal):
        principal.refresh_active()
