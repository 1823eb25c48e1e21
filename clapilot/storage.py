from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    """Hashed, compressed static files. A file that collectstatic has not seen yet (tests, a fresh
    checkout, a process started before the last collectstatic) is served under its plain name
    instead of failing the whole page."""

    manifest_strict = False
    # No support_js_module_import_aggregation: vendored modules (django-htmx's extensions) import
    # files that do not exist and would fail collectstatic. mutations.js keeps one shared state
    # on `window`, so a page that loads it under two names still has one socket.

    def url(self, name, force=False):
        try:
            return super().url(name, force)
        except ValueError:
            return f"{self.base_url}{name}"
