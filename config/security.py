"""The Content-Security-Policy every response carries (settings.CONTENT_SECURITY_POLICY).

Every page loads its scripts, styles, images and fonts from this site alone and
has no inline script, style attribute or on* handler (the templates keep data
in ``<script type="application/json">`` blocks, which are never run), so the
policy can be strict: an injected script or a stray third-party request is
refused by the browser instead of run.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.deprecation import MiddlewareMixin


class ContentSecurityPolicyMiddleware(MiddlewareMixin):
    """Adds the policy to responses that do not set their own (sync and async)."""

    def process_response(self, request, response):
        policy = getattr(settings, "CONTENT_SECURITY_POLICY", "")
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        return response
