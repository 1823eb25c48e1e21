"""The only writers of providers and models (the admin's saves and deletes): admins only, checked
like every other surface through the input models of `apps.llm.contracts`."""

from __future__ import annotations

from django.db import transaction
from django.db.models import ProtectedError
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.accounts.services import require_office_admin
from apps.core.db.lookup import existing
from apps.core.db.saving import save_unique
from apps.core.errors import Conflict, InvalidInput
from apps.llm.contracts import ModelSave, ProviderSave
from apps.llm.models import ModelConfig, Provider


def _provider(provider_id: int, field: str = "provider_id") -> Provider:
    return existing(Provider, provider_id, _("There is no model provider with id %(id)s."), field=field)


def _model(model_pk: int) -> ModelConfig:
    return existing(ModelConfig, model_pk, _("There is no model with id %(id)s."), field="id")


def save_provider(principal: Principal, data: ProviderSave, provider_id: int | None = None) -> Provider:
    """Add a provider (provider_id None) or change one; a taken name is `invalid_input` on `name`."""
    require_office_admin(principal)
    provider = _provider(provider_id, "id") if provider_id else Provider()
    provider.name, provider.kind, provider.base_url = data.name, data.kind, data.base_url
    provider.api_key, provider.enabled = data.api_key, data.enabled
    save_unique(provider, lambda: InvalidInput.field("name", _("is already used by another provider")))
    return provider


@transaction.atomic
def delete_provider(principal: Principal, provider_id: int) -> None:
    """Deletes the provider with its models (choices naming one of them become empty)."""
    require_office_admin(principal)
    _deleted(_provider(provider_id, "id"))


def save_model(principal: Principal, data: ModelSave, model_pk: int | None = None) -> ModelConfig:
    """Add a model to a provider (model_pk None) or change one; a model id the provider already
    has is `invalid_input` on `model_id`."""
    require_office_admin(principal)
    _provider(data.provider_id)
    model = _model(model_pk) if model_pk else ModelConfig()
    for name in ModelSave.model_fields:
        setattr(model, name, getattr(data, name))
    save_unique(
        model, lambda: InvalidInput.field("model_id", _("this provider has a model with this id already"))
    )
    return model


@transaction.atomic
def delete_model(principal: Principal, model_pk: int) -> None:
    require_office_admin(principal)
    _deleted(_model(model_pk))


def _deleted(row: Provider | ModelConfig) -> None:
    try:
        with transaction.atomic():
            row.delete()
    except ProtectedError:
        raise Conflict(
            _("“%(name)s” is the aggregator of a Mixture-of-Agents preset; change the preset first.")
            % {"name": row}
        ) from None
