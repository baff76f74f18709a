"""Incoming WebSocket frames that are too large, at the server's door.

The room consumer refuses a frame over 4 KB with a ``too_large`` error and
closes the socket with 4009 (rooms.consumers.MAX_FRAME_BYTES). A frame must
reach the consumer for that, and daphne (autobahn underneath) drops the TCP
connection without a word on any message over its own limit (1 MB by
default): the client saw 1006 and no reason. Here that limit is set for every
way daphne is started (``daphne``, ``python -m daphne``, ``runserver``; all
of them load config.asgi, which installs this) and going over it is answered
like the consumer's refusal: the same ``too_large`` error, then close 4009.

The limit is 64 KB, not daphne's megabyte: anything over 4 KB is refused
anyway, so reading more only lets a stranger make each socket hold more. What
is left of a refused message is read and thrown away, never kept.
"""

from __future__ import annotations

import json

from daphne import ws_protocol

MAX_MESSAGE_BYTES = 64 * 1024
CLOSE_TOO_LARGE = 4009  # as rooms.consumers.CLOSE_TOO_LARGE
TOO_LARGE = json.dumps(
    {"type": "error", "code": "too_large", "message": "Message too large"},
    separators=(",", ":"),
).encode()


class SizeLimitedWebSocketProtocol(ws_protocol.WebSocketProtocol):
    # Class attributes win over the factory's (daphne's command-line) values:
    # autobahn copies an option from the factory only when the protocol has none.
    maxMessagePayloadSize = MAX_MESSAGE_BYTES
    maxFramePayloadSize = MAX_MESSAGE_BYTES

    def _max_message_size_exceeded(self, msg_size, max_msg_size, reason) -> None:
        if self.state != self.STATE_OPEN:
            super()._max_message_size_exceeded(msg_size, max_msg_size, reason)
            return
        # autobahn's own flag for "this side gave up": the rest of the message
        # (and anything after it) is parsed and discarded, not buffered.
        self.failedByMe = True
        self.sendMessage(TOO_LARGE, isBinary=False)
        self.sendClose(code=CLOSE_TOO_LARGE)


def install() -> None:
    """Make daphne build every WebSocket connection with the limit above."""
    ws_protocol.WebSocketFactory.protocol = SizeLimitedWebSocketProtocol
