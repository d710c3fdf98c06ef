"""Small immutable value classes without ``dataclasses``.

A dataclass compiles its generated methods when its module is imported, which made up a third of
the engine's start-up (``python -m engine`` is also run once per batch of positions). These
classes behave like ``@dataclass(frozen=True, slots=True)``: fields in ``_fields`` order,
equality and hashing by value within one class, a dataclass-like repr, assignment refused,
pickling by constructor arguments.
"""

from __future__ import annotations

from typing import Any, ClassVar


class FrozenValue:
    __slots__ = ()
    #: The fields in constructor order.
    _fields: ClassVar[tuple[str, ...]] = ()

    def _set(self, **fields: Any) -> None:
        """Set the fields (from ``__init__`` only)."""
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, FrozenValue)
        return self._values() == other._values()

    def __ne__(self, other: object) -> bool:
        # Python's default (the negation of __eq__), written out: mypyc cannot derive it for a
        # subclass that inherits __eq__ (it stops with an internal error).
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple[type[FrozenValue], tuple[Any, ...]]:
        return (type(self), self._values())
