"""The click-to-play builder (engine.builder) against the real engine: every legal play can be
built in every order its steps can be played, every offered step leads on to a legal play
that ``GameState.play`` accepts, and the custom_id encoding round-trips."""

from __future__ import annotations

import random
import string
from dataclasses import replace
from itertools import islice, permutations

import pytest

from engine import parse_position
from engine.builder import (
    MAX_STEPS,
    Progress,
    Turn,
    board_after,
    complete,
    decode_prefix,
    decode_steps,
    encode_steps,
    is_prefix,
    make_turn,
    next_steps,
    position_after,
    progress,
    step_label,
    turn_of,
)
from engine.game import ROLL, GameState
from engine.play import HIT, NONE, PIN, TRAP, Step
from engine.position import Position
from engine.variants import VARIANTS

from .playout import random_decisions
from .positions_data import CASES, Case, case

#: Decisions per variant checked in depth: (seed, every n-th decision, at most this many).
SAMPLES = ((1, 3, 16), (2, 5, 8))
PLAYS_PER_DECISION = 8
WALKS_PER_DECISION = 3


class Explorer:
    """``progress`` of one decision, memoised by prefix (the checks revisit prefixes)."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.seen: dict[tuple[Step, ...], Progress] = {}

    def __call__(self, chosen: tuple[Step, ...]) -> Progress:
        known = self.seen.get(chosen)
        if known is None:
            known = self.seen[chosen] = progress(self.turn, chosen)
        return known


def _played(turn: Turn, order: tuple[Step, ...]) -> Position | None:
    """The position after ``order`` if each step is one the engine generates in turn, with a
    die still unused (independently of the builder's search), else None."""
    pos, rest = turn.position, list(turn.dice.numbers)
    for step in order:
        if step.die not in rest:
            return None
        after = dict(turn.rules.steps(pos, step.die)).get(step)
        if after is None:
            return None
        rest.remove(step.die)
        pos = after
    return pos


def _check_every_order(explore: Explorer, rng: random.Random) -> None:
    """(1) Each legal play is reached along every order of its steps that can be played."""
    turn = explore.turn
    plays = list(turn.plays)
    for play in rng.sample(plays, min(len(plays), PLAYS_PER_DECISION)):
        orders = 0
        for order in set(permutations(play.steps)):
            if _played(turn, order) != play.after:
                continue
            orders += 1
            for n, step in enumerate(order):
                now = explore(order[:n])
                assert now.play is None, f"{play.text}: complete after {n} steps"
                assert step in [o.step for o in now.options], (play.text, order[: n + 1])
            assert explore(order).play == play
            assert explore(order).options == ()
        assert orders >= 1, play.text  # at least the order move generation stored


def _check_walks(state: GameState, explore: Explorer, rng: random.Random) -> None:
    """(2) Random walks over offered steps end on a legal play the game accepts; (3) no
    offered step is a dead end; (4) each prefix's encoding round-trips."""
    turn = explore.turn
    for _ in range(WALKS_PER_DECISION):
        chosen: tuple[Step, ...] = ()
        while True:
            now = explore(chosen)
            assert now.position == _played(turn, chosen)
            assert now.chosen == chosen
            code = encode_steps(chosen)
            assert len(code) == 2 * len(chosen) and code.isascii()
            assert decode_steps(code) == chosen
            assert decode_prefix(turn, code) == chosen
            for option in now.options:
                after = explore((*chosen, option.step))
                assert after.options or after.play is not None, (chosen, option)
            if not now.options:
                break
            assert now.play is None  # Confirm and more steps are never offered together
            chosen = (*chosen, rng.choice(now.options).step)
        play = now.play
        assert play is not None, chosen
        assert play in turn.plays
        # Any realising path writes the play's one canonical text (RULES §7.6).
        assert now.text == play.text
        seat = state.mover
        played = state.play(seat, play.text, random.Random(0))
        assert played.position_for(seat) == play.after
        assert board_after(state, chosen) == played.board
        assert played.last is not None and played.last.text == play.text


def _decisions(variant: str) -> list[GameState]:
    states: list[GameState] = []
    for seed, every, most in SAMPLES:
        decisions = (state for state, _, _ in random_decisions(variant, seed, 400))
        states.extend(islice(islice(decisions, 0, None, every), most))
    return states


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_random_decisions(variant: str) -> None:
    rng = random.Random(variant)
    states = _decisions(variant)
    assert len(states) >= 20
    for state in states:
        explore = Explorer(turn_of(state))
        _check_every_order(explore, rng)
        _check_walks(state, explore, rng)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_hand_worked_positions(c: Case) -> None:
    pos, dice = parse_position(c.position)
    assert dice is not None
    turn = make_turn(pos, dice)
    explore = Explorer(turn)
    rng = random.Random(c.id)
    _check_every_order(explore, rng)
    # Every play of the documented legal set is built by some path.
    built: set[str] = set()
    for _ in range(20):
        chosen: tuple[Step, ...] = ()
        while explore(chosen).options:
            chosen = (*chosen, rng.choice(explore(chosen).options).step)
        play = explore(chosen).play
        assert play is not None
        built.add(play.text)
    assert built <= set(c.legal)


def _turn(text: str) -> Turn:
    pos, dice = parse_position(text)
    assert dice is not None
    return make_turn(pos, dice)


def _labels(turn: Turn, *chosen: Step) -> list[str]:
    return [option.caption for option in next_steps(turn, chosen)]


def _step(turn: Turn, chosen: tuple[Step, ...], caption: str) -> Step:
    (option,) = [o for o in next_steps(turn, chosen) if o.caption == caption]
    return option.step


def test_higher_die_rule() -> None:
    # C1, 6-5: either die alone can be played but not both; only the 6 is offered.
    turn = _turn(case("C1").position)
    assert _labels(turn) == ["13/7"]
    (option,) = next_steps(turn)
    assert option.step == Step(13, 7, 6)
    assert complete(turn, (option.step,)) is not None
    assert complete(turn, (Step(13, 8, 5),)) is None
    assert not is_prefix(turn, (Step(13, 8, 5),))


def test_neverfinishing_hit_or_trap() -> None:
    # N1, 4-1: landing on the blot on 6 is offered both ways; 10/5 is built through the trap
    # (released when the checker moves on) or through 9.
    turn = _turn(case("N1").position)
    assert _labels(turn) == ["24/23", "24/20", "10/9", "10/6*", "10/6^"]
    hit = _step(turn, (), "10/6*")
    trap = _step(turn, (), "10/6^")
    assert (hit.effect, trap.effect) == (HIT, TRAP)
    assert _labels(turn, hit) == ["24/23", "6/5"]
    assert _labels(turn, trap) == ["24/23", "6/5"]
    through_trap = complete(turn, (trap, Step(6, 5, 1)))
    through_nine = complete(turn, (Step(10, 9, 1), Step(9, 5, 4)))
    assert through_trap is not None and through_trap.text == "10/5"
    assert through_nine == through_trap
    after_hit = complete(turn, (hit, Step(6, 5, 1)))
    assert after_hit is not None and after_hit.text == "10/6*/5"
    trapped = complete(turn, (Step(24, 23, 1), trap))
    assert trapped is not None and trapped.text == "24/23 10/6^"
    assert position_after(turn, (trap,)).points[6] == "OX"


def test_touch_down_on_either_point() -> None:
    # 24/13 with 6-5: through 18 or through 19, the dice in either order.
    turn = _turn("classic | 24:X1 6:X14 1:O15 | bar 0/0 | res 0/0 | off 0/0 | 65")
    via_18 = complete(turn, (Step(24, 18, 6), Step(18, 13, 5)))
    via_19 = complete(turn, (Step(24, 19, 5), Step(19, 13, 6)))
    assert via_18 is not None and via_18.text == "24/13"
    assert via_19 == via_18


def test_unlock_then_hit() -> None:
    # D2 (Dutch, 4-3): 12/8* only once 9/6 has unlocked hitting.
    turn = _turn(case("D2").position)
    assert "12/8*" not in _labels(turn)
    first = _step(turn, (), "9/6")
    assert "12/8*" in _labels(turn, first)
    play = complete(turn, (first, _step(turn, (first,), "12/8*")))
    assert play is not None and play.text == "12/8* 9/6"


def test_bearing_off_with_either_die() -> None:
    # 6-4 with two checkers on 3: both dice bear off from 3; the captions tell them apart.
    turn = _turn("classic | 24:O15 3:X2 | bar 0/0 | res 0/0 | off 13/0 | 64")
    options = next_steps(turn)
    assert [o.caption for o in options] == ["3/off (6)", "3/off (4)"]
    assert all(o.label == "3/off" and o.needs_die for o in options)
    for option in options:
        (second,) = next_steps(turn, (option.step,))
        play = complete(turn, (option.step, second.step))
        assert play is not None and play.text == "3/off(2)"


def test_no_legal_move() -> None:
    # B5c (Blocking, 5-4): nothing can be played; the empty play is complete at once.
    turn = _turn(case("B5c").position)
    assert next_steps(turn) == ()
    play = complete(turn, ())
    assert play is not None and play.text == "" and play.steps == ()
    assert progress(turn).play == play


def test_express_decision_must_play_both() -> None:
    # E1 d3 ([6x2]): one 6 alone is no play; the second goes on with the same checker or
    # another one.
    turn = _turn(case("E1-d3").position)
    assert _labels(turn) == ["16/10"]
    first = next_steps(turn)[0].step
    assert complete(turn, (first,)) is None
    assert _labels(turn, first) == ["16/10", "10/4"]
    texts = {
        play.text
        for option in next_steps(turn, (first,))
        if (play := complete(turn, (first, option.step))) is not None
    }
    assert texts == {"16/10(2)", "16/4"}


def test_game_state_in_an_express_chain() -> None:
    # A blocking-express game reaches chain decisions; the builder reads them from the state.
    for state, _, _ in random_decisions("blocking-express", 7, 400):
        if state.chain is not None and not state.chain.first:
            break
    else:
        pytest.fail("no later chain decision in this game")
    assert turn_of(state).dice == state.current_dice()
    now = progress(state)
    chosen: tuple[Step, ...] = ()
    while now.options:
        chosen = (*chosen, now.options[0].step)
        now = progress(state, chosen)
    assert now.play is not None
    played = state.play(state.mover, now.play.text, random.Random(0))
    assert board_after(state, chosen) == played.board


def test_turn_of_outside_the_move_phase() -> None:
    rolled = next(state for state, _, _ in random_decisions("classic", 3, 5))
    assert turn_of(rolled).plays == tuple(rolled.legal_plays())
    with pytest.raises(ValueError):
        turn_of(replace(rolled, phase=ROLL))


def test_step_labels() -> None:
    assert step_label(Step(25, 22, 3, HIT)) == "bar/22*"
    assert step_label(Step(15, 10, 5, PIN)) == "15/10^"
    assert step_label(Step(6, 0, 6, NONE)) == "6/off"


def test_encoding_round_trip_every_step() -> None:
    steps = [
        Step(src, max(src - die, 0), die, effect)
        for src in range(1, 26)
        for die in range(1, 7)
        for effect in (NONE, HIT, PIN, TRAP)
    ]
    codes = {encode_steps((step,)) for step in steps}
    assert len(codes) == len(steps)
    for step in steps:
        assert decode_steps(encode_steps((step,))) == (step,)
    longest = tuple(steps[:MAX_STEPS])
    assert decode_steps(encode_steps(longest)) == longest
    assert len(encode_steps(longest)) == 2 * MAX_STEPS
    assert decode_steps("") == ()


@pytest.mark.parametrize(
    "bad",
    [Step(13, 8, 6), Step(0, 0, 1), Step(26, 20, 6), Step(13, 7, 6, "glued"), Step(5, 3, 7)],
)
def test_encoding_refuses_impossible_steps(bad: Step) -> None:
    with pytest.raises(ValueError):
        encode_steps((bad,))


def test_decoding_rejects_garbage() -> None:
    turn = _turn(case("N1").position)
    rng = random.Random(5)
    alphabet = string.printable + "z~é€\x00\u3000"
    texts = ["a", "a7", "zz", "aS", "m1m1m1m1m1", "ab\n", " a1", "a1 ", "A1", "é1", "\x00\x00"]
    texts += ["".join(rng.choices(alphabet, k=rng.randrange(12))) for _ in range(2000)]
    valid = "abcdefghijklmnopqrstuvwxy123456ABCDEFGHIJKLMNOPQR"
    texts += ["".join(rng.choices(valid, k=2 * rng.randrange(1, 5))) for _ in range(2000)]
    for text in texts:
        try:
            steps = decode_steps(text)
        except ValueError:
            continue
        assert encode_steps(steps) == text
        try:
            chosen = decode_prefix(turn, text)
        except ValueError:
            assert not is_prefix(turn, steps)
            continue
        assert is_prefix(turn, chosen)
    for text in ["a1", "zz", "g2", "j1j1", "j5"]:  # 1/off?, garbage, 7/5 (no checker), ...
        with pytest.raises(ValueError):
            decode_prefix(turn, text)
    assert decode_prefix(turn, "j1") == (Step(10, 9, 1),)
