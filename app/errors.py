"""Typed refusals: one exception type per refusal a user can get, each carrying its message.

A front end shows ``str(refusal)`` to the person who asked, privately, and changes nothing: a
refusal is raised before anything is committed. Unexpected errors are not refusals.
"""

from __future__ import annotations

# Not a refusal but an outage every front end reports the same way: re-exported so that they
# need not import storage.
from storage.errors import DatabaseGoneError as DatabaseGoneError


class Refusal(Exception):
    """A use case declined; ``str(self)`` is the message for the person who asked."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


# Refusals that several use cases share.


class NoGameHere(Refusal):
    def __init__(self) -> None:
        super().__init__("There is no game in this channel. Start one with /challenge.")


class SimultaneousAction(Refusal):
    """Another action on the game was committed first (the version check caught it)."""

    def __init__(self) -> None:
        super().__init__("Someone acted on this game at the same moment; look again.")
