"""Who is asking: the client's address, for rate limits.

Behind nginx every request comes from 127.0.0.1, so per-address limits would
lump all players together. When KHELAGHOR_CLIENT_IP_HEADER names the header the
proxy sets (deploy/nginx.conf sets X-Real-IP: "HTTP_X_REAL_IP"), that is used;
never trust such a header without a proxy that overwrites it.
"""

from django.conf import settings
from django.http import HttpRequest


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
