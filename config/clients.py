"""Who is asking: the client's address (for rate limits), where a socket comes
from (its Origin) and which language it reads.

Behind nginx every request comes from 127.0.0.1, so per-address limits would
lump all players together. When KHELAGHOR_CLIENT_IP_HEADER names the header the
proxy sets (deploy/nginx.conf sets X-Real-IP: "HTTP_X_REAL_IP"), that is used;
never trust such a header without a proxy that overwrites it.
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest

from config.language import preferred_language


def client_address(request: HttpRequest) -> str:
    header = getattr(settings, "KHELAGHOR_CLIENT_IP_HEADER", "")
    if header and request.META.get(header):
        return request.META[header].split(",")[0].strip()
    return request.META.get("REMOTE_ADDR", "")


def scope_address(scope: dict) -> str:
    """The same, for an ASGI scope (the room socket)."""
    header = getattr(settings, "KHELAGHOR_CLIENT_IP_HEADER", "")
    if header.startswith("HTTP_"):
        wanted = header[5:].lower().replace("_", "-").encode()
        for name, value in scope.get("headers", []):
            if name == wanted:
                return value.decode(errors="replace").split(",")[0].strip()
    client = scope.get("client") or ("", 0)
    return str(client[0])


def _header(scope: dict, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return ""


def _socket_is_secure(scope: dict) -> bool:
    """wss, directly or (like Django's request.is_secure) as the trusted proxy says."""
    if scope.get("scheme") == "wss":
        return True
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy and proxy[0].startswith("HTTP_"):
        wanted = proxy[0][5:].lower().replace("_", "-").encode()
        return _header(scope, wanted).split(",")[0].strip() == proxy[1]
    return False


def _host_and_port(scheme: str, netloc: str) -> str:
    default = {"http": ":80", "https": ":443"}.get(scheme, "")
    netloc = netloc.lower()
    return netloc[: -len(default)] if default and netloc.endswith(default) else netloc


def socket_origin_matches(scope: dict) -> bool:
    """The socket's Origin is this very site: same host and port as the socket's
    Host header, and https exactly when the socket is secure. (Channels'
    AllowedHostsOriginValidator checks the host against ALLOWED_HOSTS only, so a
    page served over plain http could open a socket to the https site.)"""
    origin = urlsplit(_header(scope, b"origin"))
    expected = "https" if _socket_is_secure(scope) else "http"
    if origin.scheme != expected or not origin.netloc:
        return False
    host = _host_and_port(expected, _header(scope, b"host"))
    return bool(host) and _host_and_port(origin.scheme, origin.netloc) == host


def scope_language(scope: dict) -> str:
    """The language a socket's messages are written in, chosen as for its
    page (config.language): the visitor's choice (the language cookie), else
    English when the browser's first language is English, else Bengali."""
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME, "")
    return preferred_language(cookie, _header(scope, b"accept-language"))
