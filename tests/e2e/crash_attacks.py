"""Every crash attack the kill-point tries know, by name, and one random try of each: a kill
point of ``app/faults.py`` in a game against the computer in a server's thread (the point's
own name), the same in the bot's DM (``dm:``) or where only the player's interactions reach
the channel (``user:``), a turn notice (``double:``), a challenge's expiry (``expiry:``) or
answer (``accept:``, ``decline:``), a reminder (``notice_posted``), a tournament's pairing and
announcements (``tournament_*``, a 4-player knockout). Used by ``bench/kill_points.py``."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from .crash_notices import ANSWERED, answer_try, double_try, expiry_try
from .crash_points import LAST_KILL, Try, game_try, notice_try
from .harness import ROOT
from .tournament_crash import LAST_KILL as EVENT_KILLS
from .tournament_crash import tournament_try

#: The kill points of a game against the computer, in the venues where they are reached.
GAME_POINTS = (
    "committed",
    "thinking",
    "board_posted",
    "board_edited",
    "before_result_card",
    "result_card_posted",
)
#: Around the edit that closes a challenge's message (after the commit, after the edit).
CHALLENGE_POINTS = ("challenge_closed", "challenge_retired")
#: Outside a server with the bot there is no thread, hence no result card of its own.
ANYWHERE_POINTS = ("committed", "thinking", "board_posted", "board_edited")

ATTACKS: tuple[str, ...] = (
    *GAME_POINTS,
    "notice_posted",
    *(f"{venue}:{point}" for venue in ("dm", "user") for point in ANYWHERE_POINTS),
    "double:board_edited",
    "double:turn_notice_posted",
    "expiry:challenge_closed",
    "expiry:challenge_retired",
    *(f"{answer}:{point}" for answer in ANSWERED for point in CHALLENGE_POINTS),
    *EVENT_KILLS,
)


def points() -> list[str]:
    return list(ATTACKS)


async def one_try(attack: str, rng: random.Random, root: Path = ROOT) -> Try:
    """A try of ``attack`` with a random kill instant (and game), in a scratch folder."""
    if attack not in ATTACKS:
        raise ValueError(f"unknown attack {attack!r} (known: {', '.join(ATTACKS)})")
    scenario, _, point = attack.rpartition(":")
    seed = rng.randrange(1000)
    with tempfile.TemporaryDirectory(prefix="kill-points-") as folder:
        workdir = Path(folder)
        if point in EVENT_KILLS:
            return await tournament_try(point, rng.randint(1, EVENT_KILLS[point]), workdir, root)
        if point == "notice_posted":
            return await notice_try(seed, workdir, root)
        if scenario == "double":
            return await double_try(point, seed, workdir, root)
        if scenario == "expiry":
            return await expiry_try(point, seed, workdir, root)
        if scenario in ANSWERED:
            return await answer_try(scenario, point, seed, workdir, root)
        nth = rng.randint(1, LAST_KILL[point])
        decisions = rng.randint(1, 6)
        return await game_try(point, nth, decisions, seed, workdir, root, venue=scenario or "guild")
