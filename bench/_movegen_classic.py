"""bench.movegen's classic sample: random self-play driven through OpenSpiel's backgammon and
the engine in lockstep, and the comparison of both rule sets' results on it."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bench._movegen_timing import Timed
from engine import Play, Position, Roll, legal_plays
from engine.variants import get_variant

#: A random-play game longer than this is abandoned (NeverFinishing can run for a long time).
MAX_PLIES = 3000


# --- OpenSpiel --------------------------------------------------------------------------------

_ROLL = re.compile(r"roll: (\d)(\d)")


def load_pyspiel() -> Any | None:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    return pyspiel


def os_turn_strings(state: Any) -> set[str]:
    """OpenSpiel's distinct full-turn results: the timed unit of work on the OpenSpiel side.

    A double is two actions of two moves each; every first half is cloned, applied and
    expanded into its second halves. Results are deduplicated by the state text, which after a
    completed turn holds only the board, bar, borne-off counts and the previous player.
    """
    mover = state.current_player()
    seen: set[str] = set()
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if child.current_player() == mover:
            for second in child.legal_actions():
                grandchild = child.clone()
                grandchild.apply_action(second)
                seen.add(str(grandchild))
        else:
            seen.add(str(child))
    return seen


def os_turn_raw(state: Any) -> int:
    """OpenSpiel's action listing without building the distinct results (a lower bound)."""
    mover = state.current_player()
    actions = state.legal_actions()
    if not actions:
        return 0
    first = state.clone()
    first.apply_action(actions[0])
    if first.current_player() != mover:
        return len(actions)
    total = 0
    for action in actions:
        child = state.clone()
        child.apply_action(action)
        total += len(child.legal_actions())
    return total


def os_turn_detailed(state: Any) -> dict[str, tuple[Any, str]]:
    """Like ``os_turn_strings`` but keeps each result state and its action text (not timed)."""
    mover = state.current_player()
    out: dict[str, tuple[Any, str]] = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        text = state.action_to_string(mover, action)
        if child.current_player() == mover:
            for second in child.legal_actions():
                grandchild = child.clone()
                grandchild.apply_action(second)
                both = f"{text} + {child.action_to_string(mover, second)}"
                out.setdefault(str(grandchild), (grandchild, both))
        else:
            out.setdefault(str(child), (child, text))
    return out


BoardKey = tuple[tuple[int, ...], tuple[int, ...], int, int]


def os_key(state: Any) -> BoardKey:
    """OpenSpiel board as (player-0 counts, player-1 counts, bars); off follows from them."""
    return (
        tuple(state.board(0, i) for i in range(24)),
        tuple(state.board(1, i) for i in range(24)),
        state.board(0, 100),  # OpenSpiel's kBarPos
        state.board(1, 100),
    )


def engine_key(pos: Position, mover: int) -> BoardKey:
    """The same key for an engine position seen by OpenSpiel player ``mover``.

    OpenSpiel index i is player 0's point 24 - i and player 1's point i + 1.
    """
    pts = pos.points
    if mover == 0:
        mine = tuple(pts[24 - i].count("X") for i in range(24))
        theirs = tuple(pts[24 - i].count("O") for i in range(24))
        return (mine, theirs, pos.bar[0], pos.bar[1])
    mine = tuple(pts[i + 1].count("X") for i in range(24))
    theirs = tuple(pts[i + 1].count("O") for i in range(24))
    return (theirs, mine, pos.bar[1], pos.bar[0])


def chance_action(state: Any, a: int, b: int, opening: bool) -> int:
    """The chance outcome giving dice (a, b); the opening always lets player 0 start."""
    for action, _ in state.chance_outcomes():
        text = state.action_to_string(-1, action)
        m = _ROLL.search(text)
        assert m is not None, text
        if opening:
            if "X starts" in text and {int(m.group(1)), int(m.group(2))} == {a, b}:
                return int(action)
        elif (int(m.group(1)), int(m.group(2))) == (a, b):
            return int(action)
    raise ValueError(f"no chance outcome for {a}{b}")


# --- classic sampling -------------------------------------------------------------------------


@dataclass
class ClassicCase:
    pos: Position
    roll: Roll
    mover: int
    os_state: Any  # OpenSpiel state at the same decision, or None without pyspiel


def bearing_off(pos: Position) -> bool:
    """A side has borne off or has every checker in its home board."""
    if pos.off[0] or pos.off[1]:
        return True
    pts = pos.points
    x_home = pos.bar[0] == 0 and all("X" not in pts[p] for p in range(7, 25))
    o_home = pos.bar[1] == 0 and all("O" not in pts[p] for p in range(1, 19))
    return x_home or o_home


def classic_cases(count: int, seed: int, pyspiel: Any | None) -> tuple[list[ClassicCase], int]:
    """Sampled mid-game classic decisions; also returns how many games were played."""
    rng = random.Random(seed)
    cases: list[ClassicCase] = []
    games = 0
    game = pyspiel.load_game("backgammon") if pyspiel is not None else None
    start = get_variant("classic").initial_position()
    while len(cases) < count:
        games += 1
        pos = start
        mover = 0
        os_state = game.new_initial_state() if game is not None else None
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        while a == b:
            a, b = rng.randint(1, 6), rng.randint(1, 6)
        opening = True
        next_sample = rng.randint(4, 12)
        for ply in range(MAX_PLIES):
            if os_state is not None:
                os_state.apply_action(chance_action(os_state, a, b, opening))
            opening = False
            roll = Roll.of(a, b)
            if ply == next_sample:
                next_sample += rng.randint(4, 12)
                if not bearing_off(pos):
                    snapshot = os_state.clone() if os_state is not None else None
                    cases.append(ClassicCase(pos, roll, mover, snapshot))
                    if len(cases) == count:
                        break
            plays = legal_plays(pos, roll)
            chosen, os_state = choose_classic(rng, plays, mover, os_state)
            if chosen is None:
                break  # the two rule sets disagree on every play: leave this game
            after = chosen.after
            if after.off[0] or (os_state is not None and os_state.is_terminal()):
                break  # bearing off has started: no more mid-game samples in this game
            pos = after.flip()
            mover = 1 - mover
            a, b = rng.randint(1, 6), rng.randint(1, 6)
    return cases, games


def choose_classic(
    rng: random.Random, plays: list[Play], mover: int, os_state: Any | None
) -> tuple[Play | None, Any | None]:
    """A uniformly random play that both engines allow, and OpenSpiel's state after it."""
    if os_state is None:
        return rng.choice(plays), None
    by_key = {engine_key(p.after, mover): p for p in plays}
    results = list(os_turn_detailed(os_state).values())
    rng.shuffle(results)
    for child, _ in results:
        play = by_key.get(os_key(child))
        if play is not None:
            return play, child
    return None, None


# --- comparison and timing against OpenSpiel --------------------------------------------------


@dataclass
class Disagreement:
    case: ClassicCase
    engine_only: list[str]
    openspiel_only: list[str]
    engine_count: int
    openspiel_count: int


def compare(cases: Sequence[ClassicCase]) -> tuple[int, int, int, int, list[Disagreement]]:
    """Engine vs OpenSpiel: (same board, text dedupe exact, equal counts, equal sets, misses).

    "Text dedupe exact" checks that deduplicating OpenSpiel's results by state text (as the
    timed ``os_turn_strings`` does) gives as many results as deduplicating by board.
    """
    consistent = text_keyed = equal_counts = equal_sets = 0
    bad: list[Disagreement] = []
    for case in cases:
        if engine_key(case.pos, case.mover) == os_key(case.os_state):
            consistent += 1
        plays = legal_plays(case.pos, case.roll)
        mine = {engine_key(p.after, case.mover): p.text for p in plays}
        detailed = os_turn_detailed(case.os_state)
        theirs = {os_key(child): text for child, text in detailed.values()}
        text_keyed += len(detailed) == len(theirs)
        equal_counts += len(mine) == len(theirs)
        if mine.keys() == theirs.keys():
            equal_sets += 1
        else:
            bad.append(
                Disagreement(
                    case,
                    sorted(mine[k] for k in mine.keys() - theirs.keys()),
                    sorted(theirs[k] for k in theirs.keys() - mine.keys()),
                    len(mine),
                    len(theirs),
                )
            )
    return consistent, text_keyed, equal_counts, equal_sets, bad


def time_interleaved(
    cases: Sequence[ClassicCase], repeat: int, works: Sequence[Callable[[ClassicCase], object]]
) -> list[list[Timed]]:
    """Best-of-``repeat`` times of each of ``works`` per case, one case at a time.

    Timing the engine and OpenSpiel back to back on each position keeps their ratio fair when
    the machine's load drifts during the run.
    """
    clock = time.perf_counter_ns
    out: list[list[Timed]] = [[] for _ in works]
    for case in cases:
        for work, timed in zip(works, out, strict=True):
            best = None
            for _ in range(repeat):
                start = clock()
                work(case)
                elapsed = clock() - start
                if best is None or elapsed < best:
                    best = elapsed
            assert best is not None
            timed.append(Timed(case.pos, case.roll, best, 0, case.os_state))
    return out


def openspiel_once(work: Callable[[Any], object]) -> Callable[[Timed], int]:
    def once(t: Timed) -> int:
        start = time.perf_counter_ns()
        work(t.state)
        return time.perf_counter_ns() - start

    return once
