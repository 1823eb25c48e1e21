from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    """Hashed, compressed static files. A file that collectstatic has not seen yet (tests, a fresh
    checkout, a process started before the last collectstatic) is served under its plain name
    instead of failing the whole page."""

    manifest_strict = False
    # ES module imports (`import … from "./mutations.js"`) get the hashed names too, so a page
    # never loads two copies of one module.
    support_js_module_import_aggregation = True

    def url(self, name, force=False):
        try:
            return super().url(name, force)
        except ValueError:
            return f"{self.base_url}{name}"
