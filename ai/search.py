"""1-ply expectimax: each candidate is valued by the opponent's best reply to each of his 21
rolls (0-ply evaluation of the reply), weighted by the rolls' chances.

Candidates are searched best-first (by their 0-ply value) until the deadline; a candidate whose
search the deadline interrupts keeps its 0-ply value, so the answer is always the best found.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ai.evaluation import evaluator_for
from ai.types import MatchContext
from engine import ChainDice, Play, Position, Roll, Variant, legal_plays

if TYPE_CHECKING:
    from ai.learned import PositionEvaluator

#: The 21 distinct rolls with their chances.
ROLLS: tuple[tuple[Roll, float], ...] = tuple(
    (Roll(h, l), (1.0 if h == l else 2.0) / 36.0) for h in range(1, 7) for l in range(1, h + 1)
)


def opponent_context(match: MatchContext | None) -> MatchContext | None:
    """The same match seen by the opponent (None: no match)."""
    return None if match is None else match.for_opponent()


def reply_value(
    rules: Variant,
    after: Position,
    match: MatchContext | None,
    deadline: float | None,
    ev: PositionEvaluator | None = None,
    chains: bool = False,
    static: tuple[float, float] | None = None,
) -> tuple[float, float] | None:
    """(equity, win) for X of ``after`` (X has played, O on roll) at 1 ply; None at the deadline.

    ``ev``: the level's evaluation (default: the hand evaluation). ``chains``: in Express, O's
    doubles are played out as whole chains (``_chain_reply``) rather than as four steps.
    ``static``: in Express, ``after``'s own 0-ply (equity, win) stands for O's doubles, each the
    start of a chain too long to search (the network learned that value from whole chains)."""
    if ev is None:
        ev = evaluator_for(rules.id)
    opp = after.flip()
    replies: list[Position] = []
    bounds: list[int] = []
    weights: list[float] = []
    o_match = opponent_context(match)
    static_weight = 0.0
    for roll, chance in ROLLS:
        if deadline is not None and time.monotonic() > deadline:
            return None
        if static is not None and roll.is_double and rules.chains_doubles:
            static_weight += chance
            continue
        if chains and roll.is_double and rules.chains_doubles:
            # An Express double is a whole chain (up to 24 numbers), not four steps: O's
            # reply is where the chain ends, both sides playing it out greedily.
            end = _chain_reply(rules, opp, roll.high, deadline, ev, o_match)
            if end is None:
                return None
            plays = [Play((), opp, end)]
        else:
            plays = legal_plays(opp, roll, rules)
        bounds.append(len(replies))
        replies.extend(p.after for p in plays)
        weights.append(chance)
    if deadline is not None and time.monotonic() > deadline:
        return None
    eq, win = ev.evaluate(rules, replies, o_match)
    starts = np.array(bounds)
    best = np.maximum.reduceat(eq, starts)
    # The winning chance of the reply O picks (the one with the best equity for O).
    ends = [*bounds[1:], len(replies)]
    pick = np.array([s + int(np.argmax(eq[s:e])) for s, e in zip(bounds, ends, strict=True)])
    w = np.array(weights)
    # X's winning chance summed over the rolls searched (all of them but static doubles).
    equity, chance = float(-(w @ best)), float(w.sum() - w @ win[pick])
    if static is not None and static_weight > 0.0:
        equity += static_weight * static[0]
        chance += static_weight * static[1]
    return equity, chance


def _chain_reply(
    rules: Variant,
    pos: Position,
    value: int,
    deadline: float | None,
    ev: PositionEvaluator,
    match: MatchContext | None,
) -> Position | None:
    """Where the Express chain of the double ``value``-``value`` rolled by X (to play) in
    ``pos`` ends (X's frame), X choosing greedily at 0 ply; None at the deadline."""
    dice = ChainDice(value, 4, rolled=True)
    plays = legal_plays(pos, dice, rules)
    if len(plays) == 1:
        play = plays[0]
    else:
        eq, _ = ev.evaluate(rules, [p.after for p in plays], match)
        play = plays[int(np.argmax(eq))]
    return chain_outcome(rules, play.after, dice, len(play.steps), deadline, ev, match)


def search_values(
    rules: Variant,
    afters: Sequence[Position],
    order: Sequence[int],
    match: MatchContext | None,
    deadline: float | None,
    limit: int,
    ev: PositionEvaluator | None = None,
    chains: bool = False,
    statics: Sequence[tuple[float, float]] | None = None,
) -> dict[int, tuple[float, float]]:
    """1-ply values of up to ``limit`` candidates, taken in ``order``, until the deadline.

    ``statics``: the candidates' 0-ply (equity, win), standing for O's Express doubles."""
    out: dict[int, tuple[float, float]] = {}
    for i in order[:limit]:
        after = afters[i]
        if rules.result(after) is not None:
            # The game is over: the 0-ply value is exact and as good as a searched one.
            eq, win = (ev or evaluator_for(rules.id)).evaluate(rules, [after], match)
            out[i] = (float(eq[0]), float(win[0]))
            continue
        static = None if statics is None else statics[i]
        got = reply_value(rules, after, match, deadline, ev, chains, static)
        if got is None:
            break
        out[i] = got
    return out


def chain_outcome(
    rules: Variant,
    after: Position,
    dice: ChainDice,
    played: int,
    deadline: float | None,
    ev: PositionEvaluator,
    match: MatchContext | None,
) -> Position | None:
    """Where an Express chain ends (X's frame) when X has just played ``played`` steps of the
    decision ``dice`` reaching ``after`` and both sides play the rest of it greedily (0-ply);
    None at the deadline.

    A chain is deterministic (no dice until it ends), so this lookahead needs no sampling: it
    sees what a decision leaves X (or O, if control passes) for the higher numbers.
    """
    pos = after
    mine = True  # X controls
    if played == dice.copies:
        pending = [(v, 4) for v in range(dice.value + 1, 7)]
        fresh = False
    else:
        # X is stuck: the rest passes to O.
        pending = [(dice.value, dice.copies - played), *[(v, 4) for v in range(dice.value + 1, 7)]]
        mine, fresh = False, True
    opp = opponent_context(match)
    while pending:
        if deadline is not None and time.monotonic() > deadline:
            return None
        if rules.result(pos) is not None:
            return pos
        value, copies = pending[0]
        mover = pos if mine else pos.flip()
        plays = legal_plays(mover, ChainDice(value, copies), rules)
        if len(plays) == 1:
            play = plays[0]
        else:
            eq, _ = ev.evaluate(rules, [p.after for p in plays], match if mine else opp)
            play = plays[int(np.argmax(eq))]
        pos = play.after if mine else play.after.flip()
        m = len(play.steps)
        if m == copies:
            pending = pending[1:]
            fresh = False
        elif fresh and m == 0:
            break  # both players stuck: the rest is forfeited
        else:
            pending = [(value, copies - m), *pending[1:]]
            mine, fresh = not mine, True
    return pos


def chain_values(
    rules: Variant,
    plays: Sequence[Play],
    order: Sequence[int],
    dice: ChainDice,
    match: MatchContext | None,
    deadline: float | None,
    limit: int,
    ev: PositionEvaluator | None = None,
    ply: int = 0,
    chains: bool = False,
) -> dict[int, tuple[float, float]]:
    """Values of up to ``limit`` candidate plays of an Express chain decision (taken in
    ``order``) at the end of the chain played out greedily, until the deadline; ``ply`` 1
    values each end by O's replies to his 21 rolls (``reply_value``; ``chains``: his doubles
    played out as whole chains)."""
    if ev is None:
        ev = evaluator_for(rules.id)
    ends: dict[int, Position] = {}
    out: dict[int, tuple[float, float]] = {}
    for i in order[:limit]:
        end = chain_outcome(rules, plays[i].after, dice, len(plays[i].steps), deadline, ev, match)
        if end is None:
            break
        if ply > 0 and rules.result(end) is None:
            got = reply_value(rules, end, match, deadline, ev, chains)
            if got is None:
                break
            out[i] = got
            continue
        ends[i] = end
    if not ends:
        return out
    keys = list(ends)
    eq, win = ev.evaluate(rules, [ends[i] for i in keys], match)
    out.update({i: (float(eq[j]), float(win[j])) for j, i in enumerate(keys)})
    return out
