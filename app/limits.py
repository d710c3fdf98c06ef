"""Per-user limits on expensive requests (replays, reviews, hints): one member asking again and
again must not take the workers from everyone else's games.

:class:`RateLimiter` is a sliding window per key (a user id): at most ``rate.count`` requests
in any ``rate.seconds``; one more is refused with :class:`RateLimited`, whose message says when
to try again. The clock is injected (tests move it by hand).
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from app.errors import Refusal

#: Users remembered before the limiter forgets those with no request inside the window (so
#: that the memory stays bounded however many members ever asked).
SWEEP_AT = 4096

_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d+(?:\.\d+)?)\s*s?\s*$")


class RateLimited(Refusal):
    """Too many requests of this kind from this user just now."""

    def __init__(self, what: str, retry_after: float) -> None:
        self.retry_after = retry_after
        seconds = max(1, math.ceil(retry_after))
        super().__init__(f"You asked for {what} too often: try again in {seconds} s.")


class Busy(Refusal):
    """The workers' queue is full (everyone's requests together)."""

    def __init__(self) -> None:
        super().__init__("The bot is busy: try again in a few seconds.")


@dataclass(frozen=True, slots=True)
class Rate:
    """At most ``count`` requests in any ``seconds``."""

    count: int
    seconds: float

    def __post_init__(self) -> None:
        if self.count < 1 or not 0 < self.seconds <= 86400:
            raise ValueError(f"a rate needs count >= 1 and 0 < seconds <= 86400: {self}")

    @classmethod
    def parse(cls, text: str) -> Rate:
        """``"3/30"``: 3 requests per 30 seconds. Raises ValueError."""
        match = _RATE.match(text)
        if match is None:
            raise ValueError(f"expected COUNT/SECONDS, e.g. 3/30, got {text!r}")
        return cls(int(match.group(1)), float(match.group(2)))

    def __str__(self) -> str:
        return f"{self.count}/{self.seconds:g}"


#: Per user: replays and reviews (seconds of a worker each), and hints (1.5 s of the computer
#: player's only worker each); app.config reads overrides (REPORT_LIMIT, HINT_LIMIT).
DEFAULT_REPORT_RATE = Rate(3, 30)
DEFAULT_HINT_RATE = Rate(4, 30)
#: Per user, every expensive command together (/replay, /review, /hint, /analyze, /board),
#: counted at the front door whatever its outcome, so a flood is refused before any database
#: query or work; app.config reads an override (EXPENSIVE_LIMIT). Loose enough never to refuse
#: what the limits above would allow (3 + 4 in 30 s, plus a few refused tries).
DEFAULT_EXPENSIVE_RATE = Rate(12, 30)
#: What the front-door limit's refusal calls the commands it counts.
EXPENSIVE_COMMANDS = "replays, reviews, hints, analyses and boards"


class RateLimiter:
    """A sliding window of each key's recent requests."""

    def __init__(self, rate: Rate, what: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        #: What is limited, for the refusal ("replays and reviews").
        self.what = what
        self._clock = clock
        self._recent: dict[Hashable, deque[float]] = {}

    def take(self, key: Hashable) -> None:
        """Count one request of ``key`` now, or raise :class:`RateLimited` (then it does not
        count: a refused request costs nothing)."""
        now = self._clock()
        recent = self._recent.get(key)
        if recent is None:
            if len(self._recent) >= SWEEP_AT:
                self._sweep(now)
            recent = self._recent[key] = deque()
        self._expire(recent, now)
        if len(recent) >= self.rate.count:
            raise RateLimited(self.what, recent[0] + self.rate.seconds - now)
        recent.append(now)

    def _expire(self, recent: deque[float], now: float) -> None:
        while recent and recent[0] <= now - self.rate.seconds:
            recent.popleft()

    def _sweep(self, now: float) -> None:
        for key in list(self._recent):
            self._expire(self._recent[key], now)
            if not self._recent[key]:
                del self._recent[key]
