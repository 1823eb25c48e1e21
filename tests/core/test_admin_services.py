"""Every admin saves through its service: each registered ModelAdmin is a `ServiceAdmin` (its saves
and deletes call the domain service), cannot write at all, or is on a short list with the reason.
And the config admins converted last (instance settings, service principals, MoA presets, learning
settings) answer a refusal on the form instead of a 500, with nothing written."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.admin.options import ModelAdmin
from django.test import RequestFactory
from django.urls import reverse

from apps.accounts.models import ServicePrincipal
from apps.agent.models import MoAPreset
from apps.core import services
from apps.core.contracts import InstanceSettingSave
from apps.core.errors import Forbidden
from apps.core.inputs import build
from apps.core.models import InstanceSetting
from apps.core.surfaces.admin_bases import ServiceAdmin
from apps.learning.models import LearningSettings
from apps.llm.models import ModelConfig, Provider

# model label → why its admin writes without a domain service. Keep it short: a new admin belongs
# on a service base (apps.core.surfaces.admin_bases), not here.
NOT_THROUGH_A_SERVICE = {
    "accounts.User": "Django's user admin: password hashing and role → superuser live in User.save "
    "and the auth forms; people are invited on the colleagues page",
    "auth.Group": "Django's group admin (permission sets); no domain state",
    "axes.AccessAttempt": "third-party (django-axes): lockout records an admin clears",
    "axes.AccessFailureLog": "third-party (django-axes): lockout log",
    "axes.AccessLog": "third-party (django-axes): login log",
    "django_celery_beat.ClockedSchedule": "third-party beat schedule; ensure_periodic_tasks owns the app rows",
    "django_celery_beat.CrontabSchedule": "third-party beat schedule",
    "django_celery_beat.IntervalSchedule": "third-party beat schedule",
    "django_celery_beat.PeriodicTask": "third-party; protected jobs refuse deletion in the database (ProtectedJob)",
    "django_celery_beat.SolarSchedule": "third-party beat schedule",
    "core.Heartbeat": "liveness rows the processes write; deleting a stale one is housekeeping",
    "agent.InferenceUsage": "a usage log, looked at and pruned; never edited",
    "tools.ToolExecution": "the tool-call audit trail, looked at and pruned; never edited",
}


def _writes(model_admin: ModelAdmin, request) -> bool:
    return any(
        (
            model_admin.has_add_permission(request),
            model_admin.has_change_permission(request),
            model_admin.has_delete_permission(request),
        )
    )


@pytest.mark.django_db
def test_every_admin_writes_through_a_service_or_says_why_not(admin_user):
    request = RequestFactory().get("/admin/")
    request.user = admin_user
    unexplained, stale = [], []
    for model, model_admin in admin.site._registry.items():
        label = model._meta.label
        through_service = isinstance(model_admin, ServiceAdmin) and all(
            getattr(type(model_admin), name) is getattr(ServiceAdmin, name)
            for name in ("save_model", "delete_model", "delete_queryset")
        )
        if through_service or not _writes(model_admin, request):
            if label in NOT_THROUGH_A_SERVICE:
                stale.append(label)
        elif label not in NOT_THROUGH_A_SERVICE:
            unexplained.append(f"{label} ({type(model_admin).__module__}.{type(model_admin).__name__})")
        if through_service and type(model_admin).save_formset is ModelAdmin.save_formset:
            for inline_class in model_admin.inlines:
                inline = inline_class(model, admin.site)
                writes = (
                    inline.has_add_permission(request, None)
                    or inline.has_change_permission(request)
                    or inline.has_delete_permission(request)
                )
                if writes:  # its rows would be saved by formset.save(), past the service
                    unexplained.append(f"{label} inline {inline_class.__name__}")
    assert unexplained == [], "admins writing past their service: " + ", ".join(unexplained)
    assert stale == [], "allow-listed, but writing through a service (or not at all): drop them"
    assert set(NOT_THROUGH_A_SERVICE) <= {m._meta.label for m in admin.site._registry}


@pytest.mark.django_db
def test_the_check_sees_a_plain_admin(admin_user):
    """The test above fails for an admin saving with the ORM (it is not vacuous)."""

    class Plain(ModelAdmin):
        pass

    request = RequestFactory().get("/admin/")
    request.user = admin_user
    assert _writes(Plain(ServicePrincipal, admin.site), request)
    # …and an editable inline of a service admin (the provider page's models, saved by its own
    # save_formset through the service) is one it would report without that override.
    from apps.llm.admin import ModelInline, ProviderAdmin

    assert ModelInline(Provider, admin.site).has_change_permission(request)
    assert ProviderAdmin.save_formset is not ModelAdmin.save_formset


# --- instance settings ------------------------------------------------------------------------------
@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    client.cookies["django_language"] = "de"
    return client


def _form_errors(response) -> str:
    assert response.status_code == 200  # the form again, never a 500 or "saved"
    form = response.context["adminform"].form
    return " ".join(str(e) for errors in form.errors.values() for e in errors)


@pytest.mark.django_db
def test_instance_settings_save_and_delete_through_the_service(admin_client, as_anna, as_boss):
    add = reverse("admin:core_instancesetting_add")
    assert admin_client.post(add, {"key": "mein_schalter", "value": '{"an": true}'}).status_code == 302
    row = InstanceSetting.objects.get(key="mein_schalter")
    assert row.value == {"an": True}
    # A key an app declares is checked by that app (the headless rule of approvals).
    refused = admin_client.post(add, {"key": "approvals.headless", "value": '"irgendwas"'})
    assert "muss" in _form_errors(refused) or "must" in _form_errors(refused)
    assert not InstanceSetting.objects.filter(key="approvals.headless", value="irgendwas").exists()
    with pytest.raises(Forbidden):
        services.save_instance_setting(as_anna, build(InstanceSettingSave, key="x", value=1))
    with pytest.raises(Forbidden):
        services.delete_instance_setting(as_anna, row.pk)
    delete = reverse("admin:core_instancesetting_delete", args=[row.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert not InstanceSetting.objects.filter(key="mein_schalter").exists()
    assert services.save_instance_setting(as_boss, build(InstanceSettingSave, key="x", value=[1])).value == [
        1
    ]


# --- service principals -----------------------------------------------------------------------------
@pytest.mark.django_db
def test_service_principals_save_through_the_service(admin_client, as_anna):
    from apps.accounts import services as accounts
    from apps.accounts.contracts import ServicePrincipalSave

    add = reverse("admin:accounts_serviceprincipal_add")
    form = {"name": "Nachtlauf", "kind": "automation", "is_active": "on", "description": "Jede Nacht"}
    assert admin_client.post(add, form).status_code == 302
    robot = ServicePrincipal.objects.get(name="Nachtlauf")
    assert (robot.kind, robot.is_active, robot.description) == ("automation", True, "Jede Nacht")
    too_long = admin_client.post(add, {**form, "name": "Lang", "description": "x" * 2001})
    assert "2000" in _form_errors(too_long) and not ServicePrincipal.objects.filter(name="Lang").exists()
    with pytest.raises(Forbidden):
        accounts.save_service_principal(as_anna, build(ServicePrincipalSave, name="Heimlich"))
    change = reverse("admin:accounts_serviceprincipal_change", args=[robot.pk])
    assert admin_client.post(change, {**form, "is_active": ""}).status_code == 302
    robot.refresh_from_db()
    assert robot.is_active is False
    delete = reverse("admin:accounts_serviceprincipal_delete", args=[robot.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert not ServicePrincipal.objects.filter(pk=robot.pk).exists()


# --- Mixture-of-Agents presets and the learning settings need models ------------------------------
@pytest.fixture
def models(db):
    provider = Provider.objects.create(name="P", kind="openai_compatible", base_url="http://127.0.0.1:9/v1")
    return [ModelConfig.objects.create(provider=provider, model_id=f"m{i}") for i in range(3)]


@pytest.mark.django_db
def test_moa_presets_save_their_models_through_the_service(admin_client, models, as_anna):
    from apps.agent import services as agent
    from apps.agent.contracts import MoAPresetSave

    add = reverse("admin:agent_moapreset_add")
    form = {
        "slug": "team",
        "name": "Team",
        "reference_models": [models[0].pk, models[1].pk],
        "aggregator": models[2].pk,
        "prompt": "",
        "enabled": "on",
    }
    assert admin_client.post(add, form).status_code == 302
    preset = MoAPreset.objects.get(slug="team")
    assert set(preset.reference_models.values_list("pk", flat=True)) == {models[0].pk, models[1].pk}
    assert preset.aggregator_id == models[2].pk
    change = reverse("admin:agent_moapreset_change", args=[preset.pk])
    too_long = admin_client.post(change, {**form, "prompt": "x" * 20_001, "reference_models": [models[0].pk]})
    assert "20000" in _form_errors(too_long).replace(".", "")
    assert preset.reference_models.count() == 2  # nothing of the refused save was written
    with pytest.raises(Forbidden):
        agent.save_moa_preset(
            as_anna,
            build(MoAPresetSave, slug="x", name="X", aggregator_id=models[0].pk, reference_model_ids=[1]),
        )
    delete = reverse("admin:agent_moapreset_delete", args=[preset.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert not MoAPreset.objects.exists()


@pytest.mark.django_db
def test_learning_settings_save_through_the_service(admin_client, models, as_anna, as_boss):
    from apps.core.errors import InvalidInput
    from apps.learning import services as learning
    from apps.learning.contracts import LearningSettingsSave

    row = LearningSettings.current()
    change = reverse("admin:learning_learningsettings_change", args=[row.pk])
    form = {"enabled": "on", "extraction_model": models[0].pk, "curator_model": models[1].pk}
    assert admin_client.post(change, form).status_code == 302
    row.refresh_from_db()
    assert (row.extraction_model_id, row.curator_model_id) == (models[0].pk, models[1].pk)
    ModelConfig.objects.filter(pk=models[2].pk).update(probe_failed=True)
    with pytest.raises(InvalidInput) as refused:
        learning.save_settings(as_boss, build(LearningSettingsSave, curator_model_id=models[2].pk))
    assert set(refused.value.field_errors) == {"curator_model_id"}
    with pytest.raises(Forbidden):
        learning.save_settings(as_anna, build(LearningSettingsSave, enabled=False))
    row.refresh_from_db()
    assert row.enabled and row.curator_model_id == models[1].pk
    assert (
        admin_client.get(reverse("admin:learning_learningsettings_delete", args=[row.pk])).status_code == 403
    )


def test_the_contract_takes_the_service_principal_kinds():
    import typing

    from apps.accounts.contracts import ServicePrincipalSave

    kinds = typing.get_args(ServicePrincipalSave.model_fields["kind"].annotation)
    assert set(kinds) == set(ServicePrincipal.Kind.values)
