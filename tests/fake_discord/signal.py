"""A tiny broadcast primitive: wake every waiter, each re-checks its own predicate."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class FakeTimeoutError(TimeoutError):
    """Raised by the fake's wait helpers; the message says what was awaited."""


class Signal:
    __slots__ = ("_waiters",)

    def __init__(self) -> None:
        self._waiters: list[asyncio.Future[None]] = []

    def fire(self) -> None:
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    async def wait_for(
        self, check: Callable[[], T | None], timeout: float, what: Callable[[], str]
    ) -> T:
        """Return the first non-None result of ``check``, re-evaluated after every ``fire``.

        ``what`` builds the error text lazily, so a timeout explains the state it gave up in.
        """
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                while True:
                    result = check()
                    if result is not None:
                        return result
                    fut: asyncio.Future[None] = loop.create_future()
                    self._waiters.append(fut)
                    await fut
        except TimeoutError:
            raise FakeTimeoutError(f"timed out after {timeout}s waiting for {what()}") from None
