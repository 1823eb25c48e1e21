"""Secrets at rest: strings encrypted with Fernet keys from `settings.CLAPILOT_ENCRYPTION_KEYS`.

The first key encrypts, every key decrypts (MultiFernet), so keys rotate by prepending a new one.
Nothing here logs or returns a plaintext in an error message.
"""

from __future__ import annotations

from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.db import models


class DecryptionError(Exception):
    """The ciphertext was made with a key that is no longer configured (or is corrupt)."""


@lru_cache(maxsize=4)
def _fernet(keys: tuple[str, ...]) -> MultiFernet:
    if not keys:
        raise RuntimeError("CLAPILOT_ENCRYPTION_KEYS is empty: cannot encrypt secrets.")
    return MultiFernet([Fernet(k.encode() if isinstance(k, str) else k) for k in keys])


def _current() -> MultiFernet:
    return _fernet(tuple(getattr(settings, "CLAPILOT_ENCRYPTION_KEYS", ()) or ()))


def encrypt(plaintext: str) -> str:
    """Fernet token (URL-safe text) for `plaintext`; the empty string stays empty."""
    if not plaintext:
        return ""
    return _current().encrypt(plaintext.encode()).decode()


def decrypt(token: str) -> str:
    if not token:
        return ""
    try:
        return _current().decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise DecryptionError("A stored secret could not be decrypted with the configured keys.") from exc


class EncryptedTextField(models.TextField):
    """A text column holding a Fernet token; Python code only ever sees the plaintext."""

    def from_db_value(self, value, expression, connection):
        if value is None:
            return value
        return decrypt(value)

    def to_python(self, value):
        return value

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if value is None:
            return value
        return encrypt(value)
