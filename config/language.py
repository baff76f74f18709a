"""Which language a visitor reads: Bengali unless they ask for English first.

Khelaghor is Bengali-first. Django's LocaleMiddleware takes the first language
of Accept-Language that the site has, so a browser set to "fr,en" (a French
phone in Dhaka, or most phones' defaults) got English. Here English is chosen
only by the visitor (the language cookie, set by the one-tap switch) or by a
browser whose *first* language is English ("en-US,en;q=0.9"); anything else,
or no header at all, is Bengali. The room socket asks the same question
(config.clients.scope_language), so a page and its socket always agree.
"""

from __future__ import annotations

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.translation import get_supported_language_variant
from django.utils.translation.trans_real import parse_accept_lang_header


def preferred_language(cookie: str | None, accept_language: str | None) -> str:
    """The language code for a visitor with this language cookie and header."""
    if cookie:
        try:
            return get_supported_language_variant(cookie)
        except LookupError:
            pass  # a stale or forged cookie: ask the browser instead
    ranked = parse_accept_lang_header(accept_language or "")
    if ranked:
        first = ranked[0][0].lower()
        if first == "en" or first.startswith("en-"):
            return "en"
    return settings.LANGUAGE_CODE


class BengaliFirstLocaleMiddleware(LocaleMiddleware):
    """LocaleMiddleware with preferred_language's choice (no i18n_patterns
    here, so the URL never carries a language). Its response half is kept:
    ``Vary: Accept-Language`` and ``Content-Language``."""

    def process_request(self, request) -> None:
        language = preferred_language(
            request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME),
            request.META.get("HTTP_ACCEPT_LANGUAGE"),
        )
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
