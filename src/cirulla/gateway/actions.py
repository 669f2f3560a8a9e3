"""The answers to recent commands, so a repeated command is never applied twice.

Apart from the socket because it outlives any one socket (a client may repeat a
command from a new connection) and is shared by all of them on this node; its
bounds (per user, in all, and in time) are what keep it from growing with the
number of users.
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any, Final

__all__ = ["ANSWER_LINGER", "MAX_ANSWERS", "ActionMemory"]

#: Seconds a user's answers are remembered after its last socket on this node closed.
ANSWER_LINGER: Final = 600.0
#: Answers remembered in all (every user's); the least recently active go first.
MAX_ANSWERS: Final = 100_000


class ActionMemory:
    """The answer to each recent action id, per user, so a repeated command is
    answered again and never applied twice (even from a new connection).

    Bounded whatever the number of users: `per_user` answers each, `total` in all
    (the least recently active user's oldest go first), and a user's answers are
    forgotten `linger` seconds after its last socket closed. A command repeated after
    that is answered `stale` (its version is gone), as after a restart."""

    def __init__(
        self,
        per_user: int = 256,
        total: int = MAX_ANSWERS,
        linger: float = ANSWER_LINGER,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_user = per_user
        self.total = total
        self.linger = linger
        self._clock = clock
        #: user -> action -> answer; users least recently answered first.
        self._answers: OrderedDict[str, OrderedDict[str, dict[str, Any]]] = OrderedDict()
        self._count = 0
        self._sockets: Counter[str] = Counter()
        self._idle: dict[str, float] = {}  # users with no socket open -> since when, oldest first

    def __len__(self) -> int:
        return self._count

    def users(self) -> int:
        return len(self._answers)

    def get(self, user: str, action: str) -> dict[str, Any] | None:
        answers = self._answers.get(user)
        return None if answers is None else answers.get(action)

    def put(self, user: str, action: str, answer: dict[str, Any]) -> None:
        self._forget_idle()
        answers = self._answers.pop(user, None)
        if answers is None:
            answers = OrderedDict()
        self._answers[user] = answers  # now the most recently active
        if answers.pop(action, None) is not None:
            self._count -= 1
        answers[action] = answer
        self._count += 1
        while len(answers) > self.per_user:
            answers.popitem(last=False)
            self._count -= 1
        while self._count > self.total:
            oldest_user, oldest = next(iter(self._answers.items()))
            oldest.popitem(last=False)
            self._count -= 1
            if not oldest:
                del self._answers[oldest_user]

    def opened(self, user: str) -> None:
        """A socket of `user` opened: its answers are kept while it is connected."""
        self._sockets[user] += 1
        self._idle.pop(user, None)

    def closed(self, user: str) -> None:
        """A socket of `user` closed; its answers go `linger` seconds after the last."""
        self._sockets[user] -= 1
        if self._sockets[user] <= 0:
            del self._sockets[user]
            self._idle[user] = self._clock()
        self._forget_idle()

    def _forget_idle(self) -> None:
        now = self._clock()
        while self._idle:
            user, since = next(iter(self._idle.items()))
            if now - since < self.linger:
                return
            del self._idle[user]
            answers = self._answers.pop(user, None)
            if answers is not None:
                self._count -= len(answers)
