#!/usr/bin/env python3
"""Exit 1 with a clear message when HOST:PORT is already taken (`make run`).

daphne's runserver logs one CRITICAL line when it cannot listen and keeps running,
serving nothing; asking first lets `make run` stop with a message instead.

Usage:
    python scripts/port_is_free.py HOST PORT
"""

from __future__ import annotations

import socket
import sys


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[1].isdigit() or not 0 < int(argv[1]) < 65536:
        print("usage: port_is_free.py HOST PORT (PORT a number from 1 to 65535)", file=sys.stderr)
        return 2
    host, port = argv[0], int(argv[1])
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        print(f"make run: cannot use HOST={host}: {exc.strerror}", file=sys.stderr)
        return 1
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        # As the server will: a port left in TIME_WAIT by a stopped server is free.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            other = port + 1 if port < 65535 else port - 1
            print(
                f"make run: cannot listen on {host}:{port}: {exc.strerror}.\n"
                f"Another server (an earlier `make run`?) is using it: stop that one, "
                f"or pick another port, e.g. `make run PORT={other}`.",
                file=sys.stderr,
            )
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
