"""The admin's operations on the model layer: a provider and a model as they are saved."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils.translation import gettext as _
from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from apps.core.contracts import INTEGER_MAX, Input

# Provider.Kind's values (tests/llm/test_services.py keeps them equal).
ProviderKind = Literal["openai", "openai_compatible", "ollama", "azure"]
_HTTP_URL = URLValidator(schemes=["http", "https"])
PRICE_MAX = Decimal("999999.9999")  # max_digits=10, decimal_places=4


class ProviderSave(Input):
    """A provider as an admin adds or changes it. The key is write-only: the service stores what
    it is given (the admin form keeps the stored key when its field is left empty)."""

    name: str = Field(min_length=1, max_length=100)
    kind: ProviderKind = "openai"
    base_url: str = Field(default="", max_length=300, description="Empty for api.openai.com.")
    api_key: str = ""
    enabled: bool = True

    @field_validator("base_url")
    @classmethod
    def _an_http_url(cls, value: str) -> str:
        if value:
            try:
                _HTTP_URL(value)
            except ValidationError:
                raise PydanticCustomError(
                    "invalid_url", str(_("must be an http(s) address like http://localhost:11434/v1"))
                ) from None
        return value


class ModelSave(Input):
    """A model of a provider as an admin adds or changes it (what the probe finds is the probe's)."""

    provider_id: int = Field(ge=1, le=INTEGER_MAX)
    model_id: str = Field(min_length=1, max_length=200)
    display_name: str = Field(default="", max_length=200)
    context_window: int = Field(default=128_000, ge=1, le=INTEGER_MAX)
    input_price_per_million: Decimal = Field(default=Decimal("0"), ge=0, le=PRICE_MAX, decimal_places=4)
    output_price_per_million: Decimal = Field(default=Decimal("0"), ge=0, le=PRICE_MAX, decimal_places=4)
    supports_tools: bool = True
    supports_vision: bool = False
    supports_reasoning: bool = False
    probe_failed: bool = False
