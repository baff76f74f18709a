"""Project configuration: one settings module, the ASGI entry point, URLs and /healthz."""
