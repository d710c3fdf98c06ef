"""Search: the deadline is honoured (best-so-far answers), levels ordered in direction."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest

from ai.arena import level_player, play_game
from ai.evaluation import evaluator_for
from ai.learned import PositionEvaluator, evaluator
from ai.players import MixedEvaluator, level_evaluation, rank_plays
from ai.search import ROLLS, _chain_reply, chain_outcome, chain_values, reply_value
from engine import VARIANTS, ChainDice, Dice, Play, Position, Variant, get_variant, legal_plays
from engine.game import MOVE, ROLL, GameState
from tests.ai.test_players import sample_decisions

ALL = sorted(VARIANTS)


def test_rolls_cover_all_36() -> None:
    assert len(ROLLS) == 21
    assert sum(chance for _, chance in ROLLS) == pytest.approx(1.0)


def _slowest(variant: str, count: int) -> list[tuple[Position, Dice]]:
    """The decisions with the most legal plays in a sample (the search's worst cases)."""
    rules = get_variant(variant)
    found = sample_decisions(variant, 99, 40)
    found.sort(key=lambda d: -len(legal_plays(d[0], d[1], rules)))
    return found[:count]


@pytest.mark.parametrize("variant", [v for v in ALL if v != "classic"])
def test_an_expired_deadline_gives_the_0ply_ranking(variant: str) -> None:
    rules = get_variant(variant)
    for pos, dice in _slowest(variant, 2):
        past = time.monotonic() - 1.0
        expert = rank_plays(rules, pos, dice, level="expert", deadline=past)
        # The 0-ply ranking of the expert's own evaluation (learned where weights are shipped).
        plays = legal_plays(pos, dice, rules)
        eq, _ = level_evaluation(variant, "expert").evaluate(rules, [p.after for p in plays], None)
        greedy = [plays[i] for i in sorted(range(len(plays)), key=lambda i: -eq[i])]
        assert [r.play for r in expert] == greedy
        assert reply_value(rules, expert[0].play.after, None, past) is None


@pytest.mark.parametrize("variant", [v for v in ALL if v != "classic"])
def test_the_deadline_holds_on_the_slowest_positions(variant: str) -> None:
    """A generous bound: the point is that a decision never runs on unbounded."""
    rules = get_variant(variant)
    for pos, dice in _slowest(variant, 2):
        start = time.monotonic()
        legal_plays(pos, dice, rules)
        listing = time.monotonic() - start
        start = time.monotonic()
        ranked = rank_plays(rules, pos, dice, level="expert", deadline=start + 0.2)
        took = time.monotonic() - start
        assert ranked
        # Past the deadline only the listing and one batch evaluation may finish.
        assert took < 0.2 + 3 * listing + 2.0


def test_search_changes_some_choices() -> None:
    """The 1-ply search is really consulted: on close decisions it sometimes overrules 0-ply."""
    rules = get_variant("pin")
    differ = 0
    for pos, dice in sample_decisions("pin", 4, 30):
        expert = rank_plays(rules, pos, dice, level="expert", deadline=time.monotonic() + 5)
        greedy = rank_plays(rules, pos, dice, level="strong")
        differ += expert[0].play != greedy[0].play
    assert differ > 0


@pytest.mark.parametrize(("upper", "lower"), [("strong", "beginner")])
def test_levels_ordered_in_direction(upper: str, lower: str) -> None:
    """Direction on a small sample (the figures come from bench/ai.py --levels)."""
    wins = 0
    games = 10
    for g in range(games):
        a, b = level_player(upper), level_player(lower)
        seats = (a, b) if g % 2 == 0 else (b, a)
        result = play_game("pin", seats, seed=500 + g)
        wins += result.winner == g % 2
    assert wins >= 6


def _greedy(ev: PositionEvaluator, rules: Variant, pos: Position, dice: Dice) -> Play:
    plays = legal_plays(pos, dice, rules)
    eq, _ = ev.evaluate(rules, [p.after for p in plays], None)
    return plays[int(np.argmax(eq))]


def _chains(seed: int, count: int) -> list[GameState]:
    """Express states at the first decision of a chain, from seeded random games."""
    rng = random.Random(seed)
    out: list[GameState] = []
    game = 0
    while len(out) < count:
        state = GameState.new("blocking-express", ("a", "b"), random.Random(seed + game))
        game += 1
        for _ in range(400):
            if state.phase == ROLL:
                state = state.roll(state.turn, rng)
            if state.phase != MOVE:
                break
            if state.chain is not None and state.chain.first:
                out.append(state)
            state = state._apply(rng.choice(state.legal_plays()), rng, auto=False)
    return out[:count]


def test_chain_lookahead_follows_the_game_flow() -> None:
    """The chain played out by ``chain_outcome``/``_chain_reply`` ends where the real game
    flow (``engine.game``) ends it when both sides pick the same greedy plays: same
    hand-overs, same forfeits when both are stuck, same win in mid-chain."""
    rules = get_variant("blocking-express")
    ev = evaluator_for("blocking-express")
    handovers = stuck = won = 0
    # Seed 47: the first 15 chains include hand-overs, both players stuck and a win.
    for state in _chains(47, 15):
        roller = state.mover
        pos = state.position_for(roller)
        dice = state.current_dice()
        assert isinstance(dice, ChainDice)
        first = _greedy(ev, rules, pos, dice)
        expected_end = chain_outcome(rules, first.after, dice, len(first.steps), None, ev, None)
        assert _chain_reply(rules, pos, dice.value, None, ev, None) == expected_end
        flow = state._apply(first, random.Random(0), auto=False)
        while flow.phase == MOVE and flow.chain is not None and flow.chain.roller == roller:
            handovers += flow.mover != roller
            mover = flow.mover
            chain_dice = flow.current_dice()
            assert chain_dice is not None
            play = _greedy(ev, rules, flow.position_for(mover), chain_dice)
            flow = flow._apply(play, random.Random(0), auto=False)
        stuck += any("both players stuck" in line for line in flow.record[-3:])
        won += flow.result is not None
        # The chain is over: the board as the roller sees it.
        seen = flow.board if roller == 0 else flow.board.flip()
        assert expected_end == seen
    assert handovers > 0 and stuck > 0 and won > 0  # every way a chain goes on or ends


def test_the_deadline_stops_a_chain_lookahead() -> None:
    rules = get_variant("blocking-express")
    ev = evaluator_for("blocking-express")
    state = _chains(24, 1)[0]
    pos = state.position_for(state.mover)
    dice = state.current_dice()
    assert isinstance(dice, ChainDice)
    assert _chain_reply(rules, pos, dice.value, time.monotonic() - 1.0, ev, None) is None


def test_mixed_evaluation_is_the_weighted_average() -> None:
    rules = get_variant("blocking")
    positions = [p.after for p in legal_plays(*sample_decisions("blocking", 3, 1)[0], rules)]
    a, b = evaluator("blocking", learned=True), evaluator_for("blocking")
    ea, wa = a.evaluate(rules, positions)
    eb, wb = b.evaluate(rules, positions)
    em, wm = MixedEvaluator(a, b, 0.25).evaluate(rules, positions)
    assert em == pytest.approx(0.75 * ea + 0.25 * eb)
    assert wm == pytest.approx(0.75 * wa + 0.25 * wb)


@pytest.mark.parametrize("variant", ["blocking-express", "blocking"])
def test_static_doubles_stand_for_the_opponents_chains(variant: str) -> None:
    """With ``static``, O's Express doubles are valued at the candidate's 0-ply value and only
    his non-doubles are searched; other variants search every roll as before."""
    rules = get_variant(variant)
    ev = evaluator(variant, learned=True)
    pos, dice = sample_decisions(variant, 8, 1)[0]
    after = legal_plays(pos, dice, rules)[0].after
    assert rules.result(after) is None
    opp = after.flip()
    equity = chance = 0.0
    for roll, p in ROLLS:
        if roll.is_double and rules.chains_doubles:
            continue
        eq, win = ev.evaluate(rules, [q.after for q in legal_plays(opp, roll, rules)])
        best = int(np.argmax(eq))
        equity -= p * float(eq[best])
        chance += p * (1.0 - float(win[best]))
    got = reply_value(rules, after, None, None, ev, static=(0.0, 0.0))
    assert got is not None
    if rules.chains_doubles:
        assert got == pytest.approx((equity, chance), abs=1e-6)
        moved = reply_value(rules, after, None, None, ev, static=(0.5, 0.25))
        assert moved == pytest.approx((equity + 0.5 / 6, chance + 0.25 / 6), abs=1e-6)
    else:
        assert got == pytest.approx(reply_value(rules, after, None, None, ev), abs=1e-9)


@pytest.mark.parametrize("variant", ["blocking-express", "blocking"])
def test_chain_replies_value_the_opponents_doubles_where_his_chain_ends(variant: str) -> None:
    """With ``chains``, each of O's Express doubles counts once, valued where the whole chain
    (played out greedily, hand-overs included) ends; his other rolls as before. Without
    chained doubles the option changes nothing."""
    rules = get_variant(variant)
    ev = evaluator(variant, learned=True)
    pos, dice = sample_decisions(variant, 8, 1)[0]
    after = legal_plays(pos, dice, rules)[0].after
    assert rules.result(after) is None
    opp = after.flip()
    equity = chance = 0.0
    for roll, p in ROLLS:
        if roll.is_double and rules.chains_doubles:
            end = _chain_reply(rules, opp, roll.high, None, ev, None)
            assert end is not None
            replies = [end]
        else:
            replies = [q.after for q in legal_plays(opp, roll, rules)]
        eq, win = ev.evaluate(rules, replies)
        best = int(np.argmax(eq))
        equity -= p * float(eq[best])
        chance += p * (1.0 - float(win[best]))
    got = reply_value(rules, after, None, None, ev, chains=True)
    assert got == pytest.approx((equity, chance), abs=1e-6)
    plain = reply_value(rules, after, None, None, ev)
    assert plain is not None
    if rules.chains_doubles:
        assert got != pytest.approx(plain, abs=1e-6)
    else:
        assert got == pytest.approx(plain, abs=1e-9)


@pytest.mark.parametrize("chains", [False, True])
def test_chain_values_at_1_ply_search_where_each_chain_ends(chains: bool) -> None:
    """``chain_values`` with ``ply`` 1 values each candidate by O's replies where the chain
    ends (his doubles as whole chains with ``chains``), in the candidates' order."""
    rules = get_variant("blocking-express")
    ev = evaluator("blocking-express", learned=True)
    for state in _chains(47, 6):
        pos = state.position_for(state.mover)
        dice = state.current_dice()
        assert isinstance(dice, ChainDice)
        plays = legal_plays(pos, dice, rules)
        order = list(range(min(3, len(plays))))
        got = chain_values(rules, plays, order, dice, None, None, 3, ev, 1, chains)
        assert sorted(got) == order
        for i in order:
            end = chain_outcome(rules, plays[i].after, dice, len(plays[i].steps), None, ev, None)
            assert end is not None
            if rules.result(end) is None:
                expected = reply_value(rules, end, None, None, ev, chains)
            else:
                eq, win = ev.evaluate(rules, [end])
                expected = (float(eq[0]), float(win[0]))
            assert got[i] == pytest.approx(expected, abs=1e-9)
