"""Rate limits on logins and new accounts: per client address, and per account name;
and the flood bucket every socket and bot token draws its frames from.

Per address (moving windows of the `limits` library): `login_attempts` a minute for
login, register, guest and claim together, and `registrations_per_hour` new accounts
(registered or guest). The address is the connection's peer; uvicorn replaces it with
X-Forwarded-For only when the peer is one of CIRULLA_TRUSTED_PROXIES, so a client
cannot pick its own. IPv6 clients are counted per /64, the block one host is given.

Per account name: after `login_per_account` attempts on one name without a success,
from any address, each further attempt must wait a delay that doubles from one
second up to `login_max_delay`. It is a slow-down, not a lock-out: whoever guesses
is held to one try per `login_max_delay`, and the owner, who knows the password, gets
in on the first attempt made after the wait. A success clears the count.

The counters live in memory, per process: a restart forgets them, and each node of a
cluster counts for itself, so N nodes allow at most N times the limits, which is
still far too slow for guessing passwords, and logins never depend on Redis being up.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Request
from limits import RateLimitItem, RateLimitItemPerSecond
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from ..settings import Settings
from .errors import ApiError

__all__ = [
    "AccountThrottle",
    "AddressLimit",
    "FloodBucket",
    "Limiters",
    "account_attempt",
    "account_succeeded",
    "client_key",
    "login_limit",
    "rate_limited",
    "registration_limit",
]


class AddressLimit:
    """At most `limit` hits per key in any `window` seconds (a moving window)."""

    def __init__(
        self, name: str, limit: int, window: int, *, storage: MemoryStorage | None = None
    ) -> None:
        if limit < 1 or window < 1:
            raise ValueError("a rate limit needs limit >= 1 and window >= 1")
        self.name = name
        self.item: RateLimitItem = RateLimitItemPerSecond(limit, window)
        self._limiter = MovingWindowRateLimiter(storage or MemoryStorage())

    def hit(self, key: str) -> float | None:
        """Count one attempt by `key`: None if allowed, else the seconds to wait
        (a refused attempt is not counted)."""
        if self._limiter.hit(self.item, self.name, key):
            return None
        stats = self._limiter.get_window_stats(self.item, self.name, key)
        return max(stats.reset_time - time.time(), 0.001)


@dataclass(slots=True)
class _Tries:
    count: int  # attempts since the last success
    not_before: float  # the clock's time the next attempt may come


class AccountThrottle:
    """The per-account slow-down of logins (see the module's docstring).

    The `limits` library has windows but no growing delay, so this one is by hand: a
    bounded LRU of names, each forgotten `forget_after` seconds after its last try.
    An attempt is counted when it starts, so many sent at once get one try, not many.
    """

    def __init__(
        self,
        free: int,
        max_delay: float,
        *,
        forget_after: float = 3600.0,
        max_names: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if free < 1 or max_delay <= 0:
            raise ValueError("an account throttle needs free >= 1 and max_delay > 0")
        self.free = free
        self.max_delay = max_delay
        self.forget_after = max(forget_after, max_delay)
        self.max_names = max_names
        self._clock = clock
        self._tries: OrderedDict[str, _Tries] = OrderedDict()

    def __len__(self) -> int:
        return len(self._tries)

    def delay(self, count: int) -> float:
        """The wait after `count` attempts without a success: none while under `free`,
        then 1, 2, 4 ... seconds, never more than `max_delay`."""
        if count < self.free:
            return 0.0
        return float(min(self.max_delay, 2.0 ** min(count - self.free, 62)))

    def attempt(self, name: str) -> float | None:
        """Count an attempt on `name`: None if it may go ahead, else the seconds left
        to wait (and it is not counted)."""
        now = self._clock()
        key = name.casefold()[:64]
        self._prune(now)
        tries = self._tries.get(key)
        if tries is None:
            tries = self._tries[key] = _Tries(0, now)
        elif now < tries.not_before:
            return tries.not_before - now
        self._tries.move_to_end(key)
        tries.count += 1
        tries.not_before = now + self.delay(tries.count)
        return None

    def succeeded(self, name: str) -> None:
        """The owner got in: their count starts again."""
        self._tries.pop(name.casefold()[:64], None)

    def _prune(self, now: float) -> None:
        while self._tries:
            key, tries = next(iter(self._tries.items()))
            if len(self._tries) < self.max_names and now - tries.not_before < self.forget_after:
                break
            del self._tries[key]


@dataclass(frozen=True, slots=True)
class Limiters:
    """The server's limiters, kept in app.state.limiters."""

    login: AddressLimit
    registration: AddressLimit
    account: AccountThrottle

    @classmethod
    def from_settings(cls, settings: Settings) -> Limiters:
        storage = MemoryStorage()
        return cls(
            login=AddressLimit("login", settings.login_attempts, 60, storage=storage),
            registration=AddressLimit(
                "registration", settings.registrations_per_hour, 3600, storage=storage
            ),
            account=AccountThrottle(settings.login_per_account, settings.login_max_delay),
        )


def client_key(request: Request) -> str:
    """The client's address, an IPv6 one as its /64 (the proxy case: see the docstring)."""
    host = request.client.host if request.client is not None else "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return host


def rate_limited(wait: float, what: str) -> ApiError:
    """429 rate_limited with Retry-After: the whole seconds to wait, at least one."""
    seconds = max(math.ceil(wait), 1)
    return ApiError(
        429,
        "rate_limited",
        f"Too many {what}: try again in {seconds} second{'s' if seconds != 1 else ''}.",
        headers={"Retry-After": str(seconds)},
    )


def _limiters(request: Request) -> Limiters:
    limiters: Limiters = request.app.state.limiters
    return limiters


async def login_limit(request: Request) -> None:
    """FastAPI dependency: 429 once an address has used up `login_attempts` a minute
    (login, register, guest and claim together)."""
    wait = _limiters(request).login.hit(client_key(request))
    if wait is not None:
        raise rate_limited(wait, "attempts from your address")


async def registration_limit(request: Request) -> None:
    """FastAPI dependency: 429 once an address has made `registrations_per_hour` new
    accounts (registered or guest) within the hour."""
    wait = _limiters(request).registration.hit(client_key(request))
    if wait is not None:
        raise rate_limited(wait, "new accounts from your address")


def account_attempt(request: Request, name: str) -> None:
    """429 if `name` has failed too often and must wait (see AccountThrottle)."""
    wait = _limiters(request).account.attempt(name)
    if wait is not None:
        raise rate_limited(wait, "failed logins for this account")


def account_succeeded(request: Request, name: str) -> None:
    _limiters(request).account.succeeded(name)


class FloodBucket:
    """Token bucket: `rate` commands a second on average, bursts up to `burst`.

    By hand, not with the `limits` library the limits above use, because that one
    does not fit a check on every frame of every socket: its windows count whole
    requests per whole seconds (`flood_per_second` is a float, and a burst over a
    window is not a token bucket), and its in-memory storage sweeps every key from a
    timer thread every 10 ms while hits come, under the GIL: with a key per socket,
    about 1.4 ms a sweep at 2,000 sockets and 7.5 ms at 10,000, taken from the event
    loop, against 0.3 us a frame here (6 us a hit there).
    """

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.stamp = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
