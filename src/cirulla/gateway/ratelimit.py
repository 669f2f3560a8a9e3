"""A sliding-window rate limit per client address, for logins and account creation.

In memory and per process: enough to make guessing passwords slow and to stop one
address from filling the users table. Keys idle for a whole window are pruned,
and the number of keys is capped, so an attacker cycling addresses cannot make
the limiter grow without bound.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable

from fastapi import Request

from .errors import ApiError

__all__ = ["RateLimiter", "client_key", "login_limit"]


class RateLimiter:
    """At most `limit` hits per key in any `window` seconds."""

    def __init__(
        self,
        limit: int,
        window: float,
        *,
        max_keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if limit < 1 or window <= 0:
            raise ValueError("a rate limit needs limit >= 1 and window > 0")
        self.limit = limit
        self.window = window
        self.max_keys = max_keys
        self._clock = clock
        self._hits: dict[str, deque[float]] = {}
        self._next_prune = clock() + window

    def __len__(self) -> int:
        """How many keys are tracked now."""
        return len(self._hits)

    def hit(self, key: str) -> float | None:
        """Count one attempt by `key`: None if allowed, else the seconds to wait
        (the refused attempt is not counted)."""
        now = self._clock()
        if now >= self._next_prune or len(self._hits) >= self.max_keys:
            self._prune(now)
        hits = self._hits.get(key)
        if hits is None:
            hits = self._hits[key] = deque()
        start = now - self.window
        while hits and hits[0] <= start:
            hits.popleft()
        if len(hits) >= self.limit:
            return max(hits[0] + self.window - now, 0.001)
        hits.append(now)
        return None

    def _prune(self, now: float) -> None:
        start = now - self.window
        for key in [k for k, hits in self._hits.items() if not hits or hits[-1] <= start]:
            del self._hits[key]
        if len(self._hits) >= self.max_keys:  # still full of live keys: forget the oldest
            for key in list(self._hits)[: len(self._hits) - self.max_keys // 2]:
                del self._hits[key]
        self._next_prune = now + self.window


def client_key(request: Request) -> str:
    """The client's address (behind a proxy, uvicorn's --forwarded-allow-ips sets it)."""
    return request.client.host if request.client is not None else "unknown"


async def login_limit(request: Request) -> None:
    """FastAPI dependency: 429 rate_limited, with Retry-After, once an address has
    used up `settings.login_attempts` a minute (login, register, guest, claim)."""
    limiter: RateLimiter = request.app.state.login_limiter
    wait = limiter.hit(client_key(request))
    if wait is not None:
        seconds = math.ceil(wait)
        raise ApiError(
            429,
            "rate_limited",
            f"Too many attempts from your address: try again in {seconds} seconds.",
            headers={"Retry-After": str(seconds)},
        )
