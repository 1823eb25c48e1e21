"""OpenAPI security schemes for the machine credentials (loaded by drf-spectacular via apps.py)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "apps.apikeys.authentication.ApiKeyAuthentication"
    name = "apiKey"

    def get_security_requirement(self, auto_schema):
        """Listed only on views that declare `required_scopes`: everywhere else a key gets 403."""
        if not getattr(auto_schema.view, "required_scopes", None):
            return None
        return {self.name: []}

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "Instance API key `clp_….…` created under Settings → Developer; acts as its "
            "creator and only on endpoints whose scopes it carries.",
        }


class DeviceTokenScheme(OpenApiAuthenticationExtension):
    target_class = "apps.apikeys.authentication.DeviceTokenAuthentication"
    name = "deviceToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token cld_….…` from POST /api/v1/auth/token.",
        }
