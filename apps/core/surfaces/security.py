"""Security headers on every response.

* Content-Security-Policy (django-csp 4, `CONTENT_SECURITY_POLICY` in settings): scripts and
  style sheets only from this server or with the request's nonce (`request.csp_nonce`), no
  inline event handlers, no eval, no plugins, no framing, forms post only here. This middleware
  adds the page's own WebSocket origin (ws:// or wss:// of this host) to `connect-src`, which
  `'self'` does not cover in every browser.
* Permissions-Policy: no camera, microphone, location, payment or USB for any page.
* Referrer-Policy, X-Content-Type-Options and Cross-Origin-Opener-Policy come from Django's
  SecurityMiddleware (`SECURE_*` settings).
"""

from __future__ import annotations

from csp.middleware import CSPMiddleware, PolicyParts
from django.conf import settings
from django.core.exceptions import DisallowedHost

PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=(), fullscreen=(self)"


class SecurityHeadersMiddleware(CSPMiddleware):
    def get_policy_parts(self, request, response, report_only: bool = False) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if report_only:
            return parts
        try:
            host = request.get_host()
        except DisallowedHost:  # answered with 400 already; the policy keeps 'self'
            return parts
        update = dict(parts.update or {})
        scheme = "wss" if request.is_secure() else "ws"
        update["connect-src"] = [*update.get("connect-src", ()), f"{scheme}://{host}"]
        parts.update = update
        return parts

    def process_response(self, request, response):
        response = super().process_response(request, response)
        policy = getattr(settings, "CLAPILOT_PERMISSIONS_POLICY", PERMISSIONS_POLICY)
        if policy and "Permissions-Policy" not in response:
            response["Permissions-Policy"] = policy
        return response
