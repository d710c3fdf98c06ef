"""Input checks shared by every storage backend: bad input raises :class:`InvalidInputError`
before any SQL runs, so no backend ever sees a half-checked argument."""

from __future__ import annotations

import math
from collections.abc import Sequence

from storage.errors import InvalidInputError
from storage.models import (
    DRAWN_KINDS,
    MAX_THEME_NAME,
    MOVE_KINDS,
    OVERALL,
    RESULT_KINDS,
    MatchResult,
    NewMove,
)

#: Largest id both backends store: SQLite INTEGER and PostgreSQL BIGINT are signed 64-bit, and
#: Discord snowflakes fit.
MAX_ID = 2**63 - 1
MAX_SETTING_SECONDS = 366 * 24 * 3600
MAX_PAGE = 1000
#: A sanity bound on stored match lengths (imported records included), not the longest
#: match players may start: that is the engine's ``engine.game.MAX_MATCH_LENGTH``.
MAX_STORED_MATCH_LENGTH = 10_000


def check_id(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ID:
        raise InvalidInputError(f"{name} must be an integer id in 0..2^63-1, got {value!r}")
    return value


def check_optional_id(name: str, value: object) -> int | None:
    return None if value is None else check_id(name, value)


def check_time(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInputError(f"{name} must be a finite number of seconds, got {value!r}")
    return float(value)


def check_count(name: str, value: object, minimum: int, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise InvalidInputError(f"{name} must be an integer in {minimum}..{maximum}, got {value!r}")
    return value


def check_text(name: str, value: object, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not allow_empty and not value):
        raise InvalidInputError(f"{name} must be a {'' if allow_empty else 'non-empty '}string")
    if "\x00" in value:
        # PostgreSQL text cannot hold NUL; refuse it on both backends alike.
        raise InvalidInputError(f"{name} must not contain NUL characters")
    return value


def check_theme_name(value: object) -> str:
    """A board theme's name: a short non-empty identifier (which exist, the cogs check)."""
    name = check_text("board_theme", value)
    if len(name) > MAX_THEME_NAME or not name.isprintable() or name != name.strip():
        raise InvalidInputError(
            f"board_theme must be a printable name of at most {MAX_THEME_NAME} characters"
        )
    return name


def check_variant(value: object) -> str:
    variant = check_text("variant", value)
    if variant == OVERALL:
        raise InvalidInputError(f"{OVERALL!r} is reserved for the overall rating")
    return variant


def check_options(options: Sequence[str]) -> str:
    """Rule option names as stored: sorted, unique, comma-separated ('' for none)."""
    names = sorted({check_text("option", o) for o in options})
    if not all(name.isalnum() for name in names):
        raise InvalidInputError("an option name is letters and digits only")
    return ",".join(names)


def check_tau(tau: object) -> float:
    if isinstance(tau, bool) or not (
        isinstance(tau, int | float) and math.isfinite(tau) and tau > 0
    ):
        raise InvalidInputError(f"tau must be a positive number, got {tau!r}")
    return float(tau)


def check_moves(moves: Sequence[NewMove]) -> None:
    for move in moves:
        if not isinstance(move, NewMove):
            raise InvalidInputError(f"moves must be NewMove objects, got {move!r}")
        check_optional_id("move actor_id", move.actor_id)
        if move.kind not in MOVE_KINDS:
            raise InvalidInputError(f"unknown move kind {move.kind!r}")
        check_text("move text", move.text, allow_empty=True)


def check_result(result: MatchResult, player_x: int, player_o: int) -> tuple[int, int]:
    """Validate a result against the game's players; return the final (score_x, score_o)."""
    if not isinstance(result, MatchResult):
        raise InvalidInputError(f"result must be a MatchResult, got {result!r}")
    if result.kind not in RESULT_KINDS:
        raise InvalidInputError(f"unknown result kind {result.kind!r}")
    points = check_count("points", result.points, 0, MAX_ID)
    if result.kind in DRAWN_KINDS:
        if result.winner_id is not None or points != 0:
            raise InvalidInputError(f"a {result.kind} has no winner and scores 0 points")
    elif result.winner_id not in (player_x, player_o):
        raise InvalidInputError(f"winner {result.winner_id!r} does not play this game")
    if result.score_x is None and result.score_o is None:
        return (
            points if result.winner_id == player_x else 0,
            points if result.winner_id == player_o else 0,
        )
    score_x = check_count("score_x", result.score_x, 0, MAX_ID)
    score_o = check_count("score_o", result.score_o, 0, MAX_ID)
    return score_x, score_o
