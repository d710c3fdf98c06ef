"""Engine errors: each carries a stable code (RULES §7.5, §12) and a message a player understands.

As in python-chess, a text that is not notation at all (``InvalidPlayError``: E_SYNTAX, E_RANGE)
is told apart from well-formed notation that the rules forbid (``IllegalPlayError``).
"""

from __future__ import annotations

from typing import Any


class EngineError(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message

    def _init_args(self) -> tuple[Any, ...]:
        """The constructor arguments that make this error again (for pickling)."""
        return (self.code, self.message)

    def __reduce__(self) -> tuple[type[EngineError], tuple[Any, ...]]:
        # An exception pickles as ``type(*self.args)`` by default, and ``args`` holds the
        # message only: that call fails (in the compiled build as in Python).
        return (type(self), self._init_args())


class InvalidPlayError(EngineError):
    """The text is not valid notation (E_SYNTAX, E_RANGE)."""


class IllegalPlayError(EngineError):
    """Valid notation, but not a legal play here (E_NO_ENTRY ... E_ILLEGAL)."""

    def __init__(self, code: str, message: str, legal: tuple[str, ...] = ()) -> None:
        super().__init__(code, message)
        #: Canonical texts of some legal plays, for the player's benefit.
        self.legal = legal

    def _init_args(self) -> tuple[Any, ...]:
        return (self.code, self.message, self.legal)


class PositionError(EngineError):
    """A position text that is malformed or describes an impossible position (E_POSITION)."""

    def __init__(self, message: str) -> None:
        super().__init__("E_POSITION", message)

    def _init_args(self) -> tuple[Any, ...]:
        return (self.message,)


class GameError(EngineError):
    """An action that the game flow does not allow now (wrong phase, wrong player...)."""
