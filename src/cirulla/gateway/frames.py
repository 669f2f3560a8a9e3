"""Frames on their way out of a socket: encoded once, queued in a bounded outbox.

Apart from the socket's command dispatch because it is the other half of a connection:
what the server sends, as opposed to what the client asks. Encoding is much of a busy
server's work, and the outbox is what bounds the memory a client that does not read
can cost (`outbox_bytes`, close code 4001 in gateway/socket.py).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson
from fastapi import WebSocket

__all__ = ["Outbox", "encode"]

_encoded_now: dict[int, tuple[dict[str, Any], str, int]] = {}


def encode(frame: dict[str, Any]) -> tuple[str, int]:
    """JSON text of a frame and its length in bytes (UTF-8, as sent); orjson, since
    encoding views is much of a busy server's work. A frame delivered to several
    sockets in one go (each seat's event, the lobby) is encoded once: the cache lives
    until the event loop's next turn and keeps the frame, so its id is not reused."""
    hit = _encoded_now.get(id(frame))
    if hit is not None and hit[0] is frame:
        return hit[1], hit[2]
    data = orjson.dumps(frame, option=orjson.OPT_NON_STR_KEYS)
    text = data.decode()
    if not _encoded_now:
        asyncio.get_running_loop().call_soon(_encoded_now.clear)
    _encoded_now[id(frame)] = (frame, text, len(data))
    return text, len(data)


class Outbox:
    """One socket's encoded frames waiting to be sent, counted in bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._frames: deque[tuple[str, int]] = deque()  # encoded frames and their bytes
        self.queued = 0  # bytes in the outbox and in the frame being sent
        self._sending = 0
        self._wake = asyncio.Event()

    def fits(self, size: int) -> bool:
        """Whether a frame of `size` bytes may wait too (one always may, alone)."""
        return not (self.queued and self.queued + size > self.limit)

    def put(self, text: str, size: int) -> None:
        self._frames.append((text, size))
        self.queued += size
        self._wake.set()

    def wake(self) -> None:
        """Let the sender look again (at what is left, or at whether to stop)."""
        self._wake.set()

    def drop(self) -> None:
        """Forget what waits (all but the frame being sent)."""
        self._frames.clear()
        self.queued = self._sending

    async def send(self, ws: WebSocket, closing: Callable[[], bool]) -> None:
        """Send the frames as they come; stop once empty when `closing()`."""
        try:
            while True:
                while self._frames:
                    text, size = self._frames.popleft()
                    self._sending = size
                    try:
                        await ws.send_text(text)
                    finally:
                        self.queued -= size
                        self._sending = 0
                if closing():
                    return
                self._wake.clear()
                await self._wake.wait()
        except Exception:  # the peer is gone: the receiving side notices and cleans up
            self.drop()
