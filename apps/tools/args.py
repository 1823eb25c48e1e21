"""Base class of every tool's argument model."""

from apps.core.contracts import Input


class Args(Input):
    """Unknown fields are an error the model can fix (never silently dropped); strings are
    trimmed; text with NUL characters and integers beyond PostgreSQL's bigint are refused
    (`Input`), as in every operation's input."""
