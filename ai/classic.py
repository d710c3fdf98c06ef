"""Classic backgammon on bgsage (the Open Sage neural-network engine): checker play and cube.

The engine's position (mover X) maps to bgsage's 26-slot board: ``board[p]`` for ``p`` in
1..24 is X's point ``p`` (positive = X's checkers, negative = O's), ``board[25]`` X's bar and
``board[0]`` O's bar; borne-off checkers are implicit. bgsage's answers are mapped back **by
resulting position**: each board it returns becomes an engine Position and is looked up among
``engine.legal_plays``' results, so the engine stays the only judge of legality (its move
tuples are never parsed).

Levels (weakest first) are knobs in ``CLASSIC_LEVELS``: the weak ones rank by the 1-ply network
with Gaussian noise on each play's equity (a human-like blunder rate that shrinks with the
level), the strong ones search deeper (bgsage's N-ply lookahead) on the best few candidates.
The deeper stages run one candidate at a time and stop at the deadline: the answer is then the
deepest stage that finished (never a mix of depths among its candidates).
"""

from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ai.types import LEVELS, STRONGEST, MatchContext, PositionValue, RankedPlay, on_searched_scale
from engine import Dice, Play, Position, Roll, get_variant, legal_plays
from engine.game import MAX_CUBE
from engine.position import EMPTY, NUM_CHECKERS, O, X

if TYPE_CHECKING:
    from bgsage import BgBotAnalyzer, MoveAnalysis, Probabilities


@dataclass(frozen=True, slots=True)
class ClassicLevel:
    """How one level plays classic."""

    #: Deepest bgsage search (1 = the raw network, 2 and 3 = lookahead over the rolls).
    plies: int
    #: Standard deviation of the Gaussian noise added to each play's equity (0 = none).
    noise: float = 0.0
    #: Candidates searched beyond 1-ply: at most this many, within ``window`` of the best.
    candidates: int = 5
    window: float = 0.10


#: The knobs per level. bench/ai.py measures that each beats the next lower one.
CLASSIC_LEVELS: dict[str, ClassicLevel] = {
    "beginner": ClassicLevel(plies=1, noise=0.40),
    "casual": ClassicLevel(plies=1, noise=0.18),
    "intermediate": ClassicLevel(plies=1, noise=0.10),
    "strong": ClassicLevel(plies=1, noise=0.06),
    "expert": ClassicLevel(plies=3),
}
assert tuple(CLASSIC_LEVELS) == LEVELS

#: How much longer a candidate takes one ply deeper (measured: 2-ply to 3-ply, 8 to 15 times).
_DEEPER = 12.0

#: Thinking time when the caller gives no deadline, so a decision never blocks for long.
DEFAULT_BUDGET = 2.0

_analyzers: dict[int, BgBotAnalyzer] = {}
_lock = threading.Lock()


def _analyzer(plies: int) -> BgBotAnalyzer:
    """One bgsage analyzer per depth per process (loading the networks takes ~0.2 s)."""
    with _lock:
        found = _analyzers.get(plies)
        if found is None:
            from bgsage import BgBotAnalyzer

            # One thread: the bot runs several decisions in parallel worker processes on a
            # small machine; bgsage's own thread pool would only compete with them.
            found = BgBotAnalyzer(eval_level=f"{plies}ply", cubeful=True, parallel_threads=1)
            _analyzers[plies] = found
        return found


def warm_up() -> None:
    """Load bgsage's networks now (a worker process does this before its first decision)."""
    for plies in sorted({lv.plies for lv in CLASSIC_LEVELS.values()}):
        _analyzer(plies)


# --- board mapping ---------------------------------------------------------------------------


def to_board(pos: Position) -> list[int]:
    """bgsage's 26-slot board for an engine classic position (mover X)."""
    board = [0] * 26
    for p in range(1, 25):
        stack = pos.points[p]
        if stack:
            board[p] = len(stack) if stack[0] == X else -len(stack)
    board[25] = pos.bar[0]
    board[0] = pos.bar[1]
    return board


def from_board(board: list[int] | tuple[int, ...]) -> Position:
    """The engine position (mover X) for a bgsage board; borne-off checkers fill up to 15."""
    if len(board) != 26:
        raise ValueError(f"a bgsage board has 26 slots, not {len(board)}")
    points = [EMPTY] * 25
    for p in range(1, 25):
        n = board[p]
        points[p] = X * n if n > 0 else O * -n
    x_bar, o_bar = board[25], board[0]
    if x_bar < 0 or o_bar < 0:
        raise ValueError("negative bar count")
    x_on = sum(n for n in board[1:25] if n > 0) + x_bar
    o_on = sum(-n for n in board[1:25] if n < 0) + o_bar
    if x_on > NUM_CHECKERS or o_on > NUM_CHECKERS:
        raise ValueError("more than 15 checkers")
    return Position(
        "classic",
        tuple(points),
        (x_bar, o_bar),
        (0, 0),
        (NUM_CHECKERS - x_on, NUM_CHECKERS - o_on),
    )


# --- match context ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Cube:
    """bgsage's cube arguments for a match context (mover's view)."""

    value: int
    owner: str
    away1: int
    away2: int
    crawford: bool


_OWNERS = {-1: "centered", 0: "player", 1: "opponent"}


def _cube_args(match: MatchContext) -> _Cube:
    if match.length > 0:
        away1 = max(1, match.length - match.score_mover)
        away2 = max(1, match.length - match.score_opponent)
    else:
        away1 = away2 = 0
    return _Cube(
        max(1, match.cube), _OWNERS.get(match.cube_owner, "centered"), away1, away2, match.crawford
    )


def _kwargs(cube: _Cube | None) -> dict[str, Any]:
    if cube is None:
        return {}
    # No Jacoby rule and no beavers in this bot's backgammon (RULES §3.1).
    return {
        "cube_value": cube.value,
        "cube_owner": cube.owner,
        "away1": cube.away1,
        "away2": cube.away2,
        "is_crawford": cube.crawford,
        "jacoby": False,
    }


# --- checker play ----------------------------------------------------------------------------


@dataclass(slots=True)
class _Scored:
    play: Play
    board: list[int]
    equity: float
    win: float | None
    #: The first-look (1-ply) value and winning chance, once a deeper stage has finished.
    first_look: float | None = None
    first_win: float | None = None
    #: ``equity`` comes from the deeper stage (not only moved onto its scale).
    deep: bool = False


def _level(level: str) -> ClassicLevel:
    try:
        return CLASSIC_LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}") from None


def _post_move(
    analyzer: BgBotAnalyzer, board: list[int], cube: _Cube | None
) -> tuple[float, float]:
    """(equity, win) for the player who just moved to ``board``."""
    if cube is None:
        res = analyzer.post_move_analytics(board)
        return float(res.cubeless_equity), float(res.probs.win)
    res = analyzer.post_move_analytics(
        board,
        cube.owner,
        cube.value,
        away1=cube.away1,
        away2=cube.away2,
        is_crawford=cube.crawford,
        jacoby=False,
    )
    return float(res.cubeful_equity), float(res.probs.win)


def _checker_play(
    analyzer: BgBotAnalyzer, pos: Position, dice: Dice, cube: _Cube | None
) -> list[MoveAnalysis]:
    if not isinstance(dice, Roll):
        raise ValueError("classic has no Express chains")
    result = analyzer.checker_play(to_board(pos), dice.high, dice.low, **_kwargs(cube))
    return list(result.moves)


def bgsage_results(pos: Position, dice: Dice) -> list[Position]:
    """The positions bgsage's 1-ply checker play offers, unfiltered (for tests and checks)."""
    return [from_board(m.board) for m in _checker_play(_analyzer(1), pos, dice, None)]


def rank_classic(
    pos: Position,
    dice: Dice,
    *,
    level: str = STRONGEST,
    deadline: float | None = None,
    match: MatchContext | None = None,
    rng: random.Random | None = None,
) -> list[RankedPlay]:
    """Every legal play of ``pos`` with ``dice``, best first in the eyes of ``level``.

    ``equity`` is in expected points for the mover per unit of cube: cubeless (gammons and
    backgammons count, no cube) when ``match`` is None, else bgsage's cubeful equity at the
    match score. Weak levels add their noise to the values (the order follows them).
    """
    knobs = _level(level)
    if deadline is None:
        deadline = time.monotonic() + DEFAULT_BUDGET
    cube = None if match is None else _cube_args(match)
    scored = _one_ply(pos, dice, cube)

    if knobs.noise > 0 and len(scored) > 1:
        # The level's own misjudgement: values and order both carry it, as in the other
        # variants' players, so a ranking is always best first by its equities.
        rng = rng or random.Random()
        for s in scored:
            s.equity += rng.gauss(0.0, knobs.noise)
        scored.sort(key=lambda s: -s.equity)

    if knobs.plies > 1 and len(scored) > 1:
        scored = _deepen(scored, knobs, cube, deadline)
    return [
        RankedPlay(s.play, s.equity, s.win, searched=s.deep, first_look=s.first_look)
        for s in scored
    ]


def first_look(pos: Position, dice: Dice) -> list[RankedPlay]:
    """Every legal play, best first by the 1-ply network's cubeless equity (no noise, no
    search: the same answer whatever the load; the rollouts take their candidates from it)."""
    return [RankedPlay(s.play, s.equity, s.win) for s in _one_ply(pos, dice, None)]


def _one_ply(pos: Position, dice: Dice, cube: _Cube | None) -> list[_Scored]:
    """Every legal play valued by the 1-ply network, best first."""
    plays = legal_plays(pos, dice, get_variant("classic"))
    by_after = {p.after: p for p in plays}
    one = _analyzer(1)

    scored: list[_Scored] = []
    seen: set[Position] = set()
    if plays and plays[0].steps:
        for move in _checker_play(one, pos, dice, cube):
            after = from_board(move.board)
            play = by_after.get(after)
            if play is None or after in seen:
                # Never trust a board the engine does not produce: it is not played.
                continue
            seen.add(after)
            eq = move.cubeless_equity if cube is None else move.equity
            scored.append(_Scored(play, list(move.board), float(eq), float(move.probs.win)))
    # Any legal play bgsage did not list (or the empty play when nothing moves) still gets a
    # value, so the ranking always covers every legal play.
    for play in plays:
        if play.after not in seen:
            b = to_board(play.after)
            eq, win = _post_move(one, b, cube)
            scored.append(_Scored(play, b, eq, win))
    scored.sort(key=lambda s: -s.equity)
    return scored


def _deepen(
    scored: list[_Scored], knobs: ClassicLevel, cube: _Cube | None, deadline: float
) -> list[_Scored]:
    """Re-rank the best candidates at 2, then 3... plies while the deadline allows.

    A stage either finishes for all its candidates (its values replace the shallower ones) or
    is dropped whole: the deepest finished stage decides. The other plays' 1-ply values are
    moved onto that stage's scale (``on_searched_scale``).
    """
    best = scored[0].equity
    chosen = [s for s in scored if best - s.equity <= knobs.window][: knobs.candidates]
    if len(chosen) < 2:
        return scored
    rest = [s for s in scored if all(s is not c for c in chosen)]
    done = chosen
    # A candidate's evaluation cannot be interrupted: one is started only when it is expected
    # to end in time (from the slowest so far; a ply deeper costs about 12 times more).
    expected = 0.0
    for plies in range(2, knobs.plies + 1):
        analyzer = _analyzer(plies)
        stage: list[_Scored] = []
        slowest = 0.0
        for s in chosen:
            now = time.monotonic()
            if now + max(slowest, expected) > deadline:
                break
            eq, win = _post_move(analyzer, s.board, cube)
            slowest = max(slowest, time.monotonic() - now)
            stage.append(_Scored(s.play, s.board, eq, win, s.equity, s.win, deep=True))
        if len(stage) < len(chosen):
            break
        stage.sort(key=lambda s: -s.equity)
        done = stage
        expected = slowest * _DEEPER
    if done is chosen:
        return scored
    # The plays not searched deeper go onto that stage's scale (``on_searched_scale``).
    corrections = [s.equity - s.first_look for s in done if s.first_look is not None]
    win_shifts = [
        s.win - s.first_win for s in done if s.win is not None and s.first_win is not None
    ]
    win_shift = sum(win_shifts) / len(win_shifts) if win_shifts else 0.0
    moved = [
        _Scored(
            s.play,
            s.board,
            on_searched_scale(s.equity, corrections, done[0].equity),
            None if s.win is None else min(1.0, max(0.0, s.win + win_shift)),
            s.equity,
            s.win,
        )
        for s in rest
    ]
    return sorted(done + moved, key=lambda s: -s.equity)


# --- rollouts ------------------------------------------------------------------------------

_rollers: dict[tuple[int, int, int], Any] = {}


def _roller(trials: int, truncate: int, plies: int) -> Any:
    """One bgsage rollout strategy per settings per process (each loads the networks)."""
    key = (trials, truncate, plies)
    with _lock:
        found = _rollers.get(key)
        if found is None:
            import bgbot_cpp
            from bgsage import default_weights

            w = default_weights()
            # One thread, trials in sequence: a rollout is one worker's job on a small machine,
            # and a seed then gives the same trials whatever the thread scheduling.
            # No variance reduction: it costs about 15 times the time of a trial for about 19
            # times less variance, and the rollouts' paired differences cancel most of that
            # luck already.
            found = bgbot_cpp.create_rollout(
                w.strategy_type,
                w.weight_paths_list,
                w.hidden_sizes_list,
                n_trials=trials,
                truncation_depth=truncate,
                decision_ply=plies,
                n_threads=1,
                parallelize_trials=False,
                enable_vr=False,
            )
            _rollers[key] = found
        return found


def rollout_boards(
    before: list[int], boards: list[list[int]], trials: int, seed: int, truncate: int, plies: int
) -> list[float]:
    """bgsage's cubeless rollout of each of ``boards`` (the mover's results of a play from
    ``before``): its mean equity for the mover over ``trials`` trials, every board rolled
    with ``seed`` (the same dice for all, so their differences are precise). ``truncate``:
    half-moves before the network values the position (0: to the end); ``plies``: the depth
    bgsage plays the trials at (1 = its raw network)."""
    strategy = _roller(trials, truncate, plies)
    out = []
    for board in boards:
        strategy.set_seed(seed)
        result = strategy.evaluate_board(board, before)
        out.append(_finite(float(result["equity"])))
    return out


# --- the cube --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CubeAction:
    """The cube decision before the mover (X) rolls, from bgsage's cube analytics.

    Equities are the mover's, cubeful, at the match score: no double, double/take, double/pass.
    """

    #: The mover should double now (False whenever doubling is not allowed).
    double: bool
    #: The opponent should take if doubled.
    take: bool
    #: Doubling is allowed now (not Crawford, cube not owned by the opponent, not dead).
    may_double: bool
    #: "no double", "too good", "double, take" or "double, pass" (bgsage's verdict).
    action: str
    no_double: float
    double_take: float
    double_pass: float
    #: The mover's cubeless chances before rolling.
    win: float
    gammon: float
    gammon_loss: float


def may_double(match: MatchContext) -> bool:
    """Whether the mover may offer a double now (game rules, not strategy)."""
    if match.crawford or match.cube_owner == 1 or match.cube >= MAX_CUBE:
        return False
    if match.length > 0:
        # A cube that already covers the mover's remaining points gains nothing (dead cube).
        return match.cube < match.length - match.score_mover
    return True


def cube_action(
    pos: Position,
    match: MatchContext | None = None,
    *,
    level: str = STRONGEST,
    deadline: float | None = None,
) -> CubeAction:
    """Should the mover (X, about to roll) double, and should the opponent take?

    ``match`` None means a single game with a centred cube of 1. Doubling is never advised in
    the Crawford game, with the opponent owning the cube, or with a dead cube.
    """
    match = match or MatchContext()
    res = _cube_analysis(pos, match, level, deadline)
    allowed = may_double(match)
    should_double = bool(res.should_double) and allowed
    should_take = bool(res.should_take)
    if not should_double:
        # bgsage holds back a double the opponent would pass: the mover is playing for more.
        action = "too good" if allowed and not should_take else "no double"
    else:
        action = "double, take" if should_take else "double, pass"
    return CubeAction(
        double=should_double,
        take=should_take,
        may_double=allowed,
        action=action,
        no_double=_finite(res.equity_nd),
        double_take=_finite(res.equity_dt),
        double_pass=_finite(res.equity_dp),
        win=float(res.probs.win),
        gammon=float(res.probs.gammon_win),
        gammon_loss=float(res.probs.gammon_loss),
    )


def _cube_analysis(pos: Position, match: MatchContext, level: str, deadline: float | None) -> Any:
    """bgsage's cube analysis of ``pos`` (X about to roll) at the match score."""
    cube = _cube_args(match)
    # bgsage's cube search cannot be interrupted and costs about ten 3-ply checker plays at
    # 3 plies: 2 plies at most, and the 1-ply network when the budget is short.
    plies = min(_level(level).plies, 2)
    if deadline is not None and deadline - time.monotonic() < 0.3:
        plies = 1
    return _analyzer(plies).cube_action(
        to_board(pos),
        cube.value,
        cube.owner,
        away1=cube.away1,
        away2=cube.away2,
        is_crawford=cube.crawford,
        jacoby=False,
        beaver=False,
    )


def points_as_match_equity(match: MatchContext, points: int) -> float | None:
    """What winning ``points`` now is worth to X at ``match``'s score, in the unit of the
    equities above (bgsage's match equity per cube, times the cube): winning the cube's value
    is +cube and losing it -cube, the rest follows the match equity table. Points past the
    end of the match are worth no more than winning it, and a gammon's second point is worth
    less than the first near the end. None outside a match or without bgsage."""
    if match.length <= 0:
        return None
    try:
        from bgbot_cpp import get_met
    except ImportError:
        return None
    cube = _cube_args(match)
    # Past a score where either side needs one point, the Crawford game has been played (or
    # is this one): the following games are post-Crawford.
    post = min(cube.away1, cube.away2) == 1

    def mwc(away1: int, away2: int) -> float:
        if away1 <= 0:
            return 1.0
        if away2 <= 0:
            return 0.0
        return float(get_met(away1, away2, post))

    win = mwc(cube.away1 - cube.value, cube.away2)
    lose = mwc(cube.away1, cube.away2 - cube.value)
    if win - lose < 1e-9:
        return None
    got = mwc(cube.away1 - points, cube.away2)
    return cube.value * (2.0 * got - win - lose) / (win - lose)


def take_decision(
    pos: Position,
    match: MatchContext | None = None,
    *,
    level: str = STRONGEST,
    deadline: float | None = None,
) -> bool:
    """Whether the player who has just been doubled should take.

    ``pos`` and ``match`` are in the frame of the player deciding (X = the one doubled, O =
    the doubler about to roll); ``match.cube`` is the value before the double.
    """
    doubler = (match or MatchContext()).for_opponent()
    return cube_action(pos.flip(), doubler, level=level, deadline=deadline).take


def classic_value(
    pos: Position,
    dice: Dice | None = None,
    match: MatchContext | None = None,
    *,
    level: str = STRONGEST,
    deadline: float | None = None,
) -> PositionValue:
    """What ``pos`` is worth to X: about to roll (``dice`` None: its best cube action, then the
    roll), or about to play ``dice`` (its best play). Cubeful at the match score, in points
    (bgsage's equity per cube times the cube), with bgsage's cubeless chances."""
    match = match or MatchContext()
    cube = _cube_args(match)
    if dice is None:
        res = _cube_analysis(pos, match, level, deadline)
        nd = _finite(res.equity_nd)
        if may_double(match) and bool(res.should_double):
            # A double the opponent takes or passes, whichever is worse for X.
            equity = min(_finite(res.equity_dt), _finite(res.equity_dp))
        else:
            equity = nd
        return _value(equity * cube.value, res.probs)
    one = _analyzer(1)
    moves = _checker_play(one, pos, dice, cube)
    if moves:
        best = max(moves, key=lambda m: float(m.equity))
        return _value(float(best.equity) * cube.value, best.probs)
    # No legal move: the position passes to O as it stands.
    after = one.post_move_analytics(
        to_board(pos),
        cube.owner,
        cube.value,
        away1=cube.away1,
        away2=cube.away2,
        is_crawford=cube.crawford,
        jacoby=False,
    )
    return _value(float(after.cubeful_equity) * cube.value, after.probs)


def _value(equity: float, probs: Probabilities) -> PositionValue:
    return PositionValue(
        equity=_finite(equity),
        win=float(probs.win),
        gammon=float(probs.gammon_win),
        backgammon=float(probs.backgammon_win),
        gammon_loss=float(probs.gammon_loss),
        backgammon_loss=float(probs.backgammon_loss),
    )


def _finite(x: float) -> float:
    return float(x) if math.isfinite(x) else 0.0


# --- luck ------------------------------------------------------------------------------------

_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def classic_luck(pos: Position, dice: Dice, match: MatchContext | None = None) -> float:
    """How much better ``dice`` is for the mover than an average roll, in equity (1-ply).

    The best play's value with this roll minus the average over all 36 rolls of the best
    play's value: positive for a lucky roll, negative for an unlucky one.
    """
    if not isinstance(dice, Roll):
        raise ValueError("classic has no Express chains")
    cube = None if match is None else _cube_args(match)
    one = _analyzer(1)

    def best(roll: Roll) -> float:
        moves = _checker_play(one, pos, roll, cube)
        if not moves:
            return _post_move(one, to_board(pos), cube)[0]
        return max(float(m.cubeless_equity if cube is None else m.equity) for m in moves)

    total = 0.0
    for a, b in _ROLLS:
        total += (1 if a == b else 2) * best(Roll(a, b))
    return best(dice) - total / 36.0
