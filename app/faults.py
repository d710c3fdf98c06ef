"""Kill points for the crash tests: ``BG_TEST_KILL_AT=POINT:N`` makes the process SIGKILL
itself the Nth time it reaches :func:`kill_point` ``POINT`` (N defaults to 1). Only the tests
and ``bench/kill_points.py`` set it; without it every kill point is one dictionary lookup.

A kill point marks an instant whose crash must not lose or repeat what the user sees: right
after a commit, right after a message reached Discord but before that was written down, while
the computer thinks. The points are listed in :data:`KILL_POINTS` so that a test can name every
one (a point renamed in the code and not here fails the test that asks for it).
"""

from __future__ import annotations

import os
import signal

ENV = "BG_TEST_KILL_AT"

#: Every kill point, with the instant it marks.
KILL_POINTS: dict[str, str] = {
    "committed": "an action (a person's or the computer's) committed, nothing shown yet",
    "thinking": "the computer has decided, its decision not committed",
    "board_posted": "a new board reached the channel, its message id not stored",
    "board_edited": "a board was edited in place, not yet marked shown",
    "before_result_card": "a finished game's last board is out, its result card not posted",
    "result_card_posted": "a result card reached the channel, not yet marked shown",
    "notice_posted": "a reminder or claim notice reached the channel, not yet recorded",
    "turn_notice_posted": "a turn notice (the ping of an edited board) is out, the board not "
    "yet marked shown",
    "challenge_closed": "a challenge expired (or was answered), its message not yet edited",
    "challenge_retired": "a closed challenge's message was edited, not yet marked tidied",
    # Tournaments (issue #36): each round paired once, each announcement posted once.
    "tournament_paired": "a round paired (or an event started, ended) and committed, not announced",
    "tournament_announced": "a round's or an end's announcement is out, not yet recorded",
    "tournament_match_posted": "a match's message is out, its thread and game not recorded",
}


def _parse(raw: str | None) -> tuple[str, int] | None:
    if not raw:
        return None
    name, _, count = raw.partition(":")
    if name not in KILL_POINTS:
        raise ValueError(f"{ENV}: unknown kill point {name!r} (known: {', '.join(KILL_POINTS)})")
    return name, int(count or "1")


_target = _parse(os.environ.get(ENV))
_reached: dict[str, int] = {}


def kill_point(name: str) -> None:
    """SIGKILL this process here if the tests asked for it (see the module's docstring)."""
    if _target is None or _target[0] != name:
        return
    _reached[name] = _reached.get(name, 0) + 1
    if _reached[name] >= _target[1]:
        os.kill(os.getpid(), signal.SIGKILL)
