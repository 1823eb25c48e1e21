"""Base class of every tool's argument model."""

from pydantic import BaseModel, ConfigDict


class Args(BaseModel):
    """Unknown fields are an error the model can fix (never silently dropped); strings are trimmed."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
