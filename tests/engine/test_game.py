"""Game flow: opening roll, turns, cube, resignation, match play, Express chains, draws."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import GameError, IllegalPlayError, Roll, parse_position
from engine.game import DOUBLE, GAME_OVER, MATCH_OVER, MOVE, ROLL, Chain, GameState
from engine.position import X

from .playout import random_decisions


class ScriptedDice(random.Random):
    """A random source whose die rolls are given in advance."""

    def __init__(self, rolls: list[int]) -> None:
        super().__init__(0)
        self.rolls = list(rolls)

    def randint(self, a: int, b: int) -> int:
        return self.rolls.pop(0)


def test_classic_opening_plays_the_opening_dice_after_ties() -> None:
    state = GameState.new("classic", ("A", "B"), ScriptedDice([3, 3, 2, 5]))
    assert state.phase == MOVE and state.turn == 1 and state.dice == Roll(5, 2)
    assert any("tie" in line for line in state.record)


def test_seed_variants_reroll_after_the_opening() -> None:
    state = GameState.new("pin", ("A", "B"), ScriptedDice([6, 1, 4, 4]))
    assert state.turn == 0 and state.dice == Roll(4, 4)


def test_express_opening_double_starts_a_chain() -> None:
    state = GameState.new("blocking-express", ("A", "B"), ScriptedDice([2, 5, 5, 5]))
    assert state.turn == 1 and state.chain is not None
    assert state.chain.pending == ((5, 4), (6, 4))
    assert state.current_dice() is not None and state.current_dice().text() == "55"


def test_wrong_player_and_wrong_phase() -> None:
    state = GameState.new("classic", ("A", "B"), ScriptedDice([6, 1]))
    with pytest.raises(GameError) as info:
        state.play(1, "13/7 8/7", random.Random(1))
    assert info.value.code == "E_TURN"
    with pytest.raises(GameError):
        state.roll(0, random.Random(1))


def test_cube_double_take_pass() -> None:
    rng = ScriptedDice([6, 1, 3, 1, 4, 2])
    state = GameState.new("classic", ("A", "B"), rng)
    state = state.play(0, "13/7 8/7", rng)
    assert state.phase == ROLL and state.turn == 1 and state.can_double(1)
    doubled = state.double(1)
    assert doubled.phase == DOUBLE and doubled.mover == 0
    with pytest.raises(GameError):
        doubled.take(1, rng)
    taken = doubled.take(0, rng)
    assert taken.cube == 2 and taken.cube_owner == 0 and taken.phase == MOVE and taken.turn == 1
    assert not taken.can_double(1)
    passed = doubled.drop(0)
    assert passed.result is not None
    assert (passed.result.winner, passed.result.points, passed.result.kind) == (1, 1, "pass")
    assert passed.phase == MATCH_OVER and passed.match_winner == 1


def test_no_cube_outside_classic() -> None:
    state = GameState.new("dutch", ("A", "B"), random.Random(3))
    assert state.phase == MOVE
    with pytest.raises(GameError):
        state.double(state.turn)


def test_resign_scores_a_single_game_times_cube() -> None:
    state = GameState.new("classic", ("A", "B"), random.Random(5), match_length=5)
    done = state.resign(0)
    assert done.result is not None and done.result.winner == 1 and done.result.points == 1
    assert done.phase == GAME_OVER and done.score == (0, 1)
    nxt = done.next_game(random.Random(6))
    assert nxt.game_number == 2 and nxt.phase in (MOVE, ROLL) and nxt.score == (0, 1)


def test_pin_resignation_scores_the_loser_pips() -> None:
    state = GameState.new("pin", ("A", "B"), random.Random(5), match_length=1000)
    done = state.resign(1)
    assert done.result is not None and done.result.points == done.pips(1)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_classic_resign_offer_accepted_scores_the_level_times_cube(level: int) -> None:
    rng = ScriptedDice([6, 1, 3, 1, 4, 2])
    state = GameState.new("classic", ("A", "B"), rng, match_length=9)
    state = state.play(0, "13/7 8/7", rng).double(1).take(0, rng)  # cube 2, B to move
    offered = state.offer_resign(0, level)
    assert offered.resign_offer == (0, level) and offered.result is None
    assert offered.record[-1].startswith("A offers to resign")
    assert f"({2 * level} points)" in offered.record[-1]
    # Nothing else happens until the offer is answered; the offerer cannot answer it.
    with pytest.raises(GameError):
        offered.play(1, "13/7 8/7", rng)
    with pytest.raises(GameError):
        offered.accept_resign(0)
    done = offered.accept_resign(1)
    assert done.result is not None
    assert (done.result.winner, done.result.points, done.result.kind) == (1, 2 * level, "resign")
    assert done.score == (0, 2 * level) and done.resign_offer is None
    assert GameState.from_json(offered.to_json()) == offered


def test_resign_offer_rejected_the_game_goes_on() -> None:
    rng = ScriptedDice([6, 1])
    state = GameState.new("classic", ("A", "B"), rng)
    offered = state.offer_resign(1, 2)  # B offers on A's turn
    with pytest.raises(GameError):
        offered.offer_resign(1, 3)
    rejected = offered.reject_resign(0)
    assert rejected.resign_offer is None and rejected.result is None
    assert rejected.record[-1] == "A rejects"
    after = rejected.play(0, "13/7 8/7", ScriptedDice([3, 1]))
    assert after.turn == 1


def test_pin_resign_levels_multiply_the_loser_pips() -> None:
    state = GameState.new("pin", ("A", "B"), random.Random(5), match_length=10_000)
    pips = state.pips(1)
    for level in (1, 2, 3):
        done = state.offer_resign(1, level).accept_resign(0)
        assert done.result is not None and done.result.points == level * pips


@pytest.mark.parametrize("variant", ["blocking", "blocking-express", "dutch", "neverfinishing"])
def test_one_level_variants_concede_at_once(variant: str) -> None:
    state = GameState.new(variant, ("A", "B"), random.Random(5))
    done = state.offer_resign(0)
    assert done.result is not None and done.result.winner == 1 and done.resign_offer is None
    with pytest.raises(GameError):
        state.offer_resign(0, 2)


def test_crawford_game_has_no_doubling() -> None:
    rng = random.Random(7)
    state = GameState.new("classic", ("A", "B"), rng, match_length=3)
    state = state.resign(1)  # A 1-0
    state = state.next_game(rng).resign(1)  # A 2-0: match point
    assert state.score == (2, 0)
    crawford = state.next_game(rng)
    assert crawford.crawford
    assert not any(crawford.can_double(s) for s in (0, 1))
    after = crawford.resign(0).next_game(rng)  # B 2-1: the game after Crawford allows the cube
    assert not after.crawford and after.crawford_done


def test_previous_winner_starts_in_pin_mother() -> None:
    rng = random.Random(11)
    state = GameState.new("pin-mother", ("A", "B"), rng, match_length=5000)
    state = state.resign(0)  # B wins
    nxt = state.next_game(rng)
    assert nxt.turn == 1 and any("won the previous game" in line for line in nxt.record)


def test_express_chain_passes_control_back_and_forth() -> None:
    # positions.md E1: X rolls 6-6; X plays 9/3, O plays 9/3, X finishes the 6s.
    board, _ = parse_position(
        "blocking-express | 16:X14+O1 9:X1 3:O14 | bar 0/0 | res 0/0 | off 0/0 | -"
    )
    chain = Chain(roller=0, controller=0, pending=((6, 4),))
    state = GameState("blocking-express", ("A", "B"), board, 0, MOVE, Roll(6, 6), chain)
    rng = ScriptedDice([2, 1])
    state = state.play(0, "9/3", rng)
    assert state.chain is not None and state.mover == 1 and state.chain.pending == ((6, 3),)
    assert [p.text for p in state.legal_plays()] == ["9/3"]
    state = state.play(1, "9/3", rng)
    assert state.chain is not None and state.mover == 0 and state.chain.pending == ((6, 2),)
    assert sorted(p.text for p in state.legal_plays()) == ["16/10(2)", "16/4"]
    state = state.play(0, "16/10 10/4", rng)
    # Chain complete: the roller's opponent rolls next.
    assert state.chain is None and state.turn == 1 and state.dice == Roll(2, 1)


def test_express_both_stuck_ends_the_chain() -> None:
    # E3 d2-like: the roller cannot play his 6s; the opponent, just handed control, cannot either.
    board, _ = parse_position(
        "blocking-express | 20:X13+O1 3:O14+X2 | bar 0/0 | res 0/0 | off 0/0 | -"
    )
    chain = Chain(roller=0, controller=0, pending=((6, 4),), first=False)
    state = GameState("blocking-express", ("A", "B"), board, 0, MOVE, Roll(5, 5), chain)
    assert [p.text for p in state.legal_plays()] == [""]
    rng = ScriptedDice([4, 3])
    state = state.play(0, "pass", rng)
    assert state.chain is not None and state.mover == 1
    assert [p.text for p in state.legal_plays()] == [""]
    state = state.play(1, "", rng)
    assert state.chain is None and state.turn == 1
    assert any("both players stuck" in line for line in state.record)


def test_dead_position_is_a_draw() -> None:
    # Pin game: every X checker is pinned or blocked, and so is every O checker.
    board, _ = parse_position("pin | 24:X1+O14 1:O1+X14 | bar 0/0 | res 0/0 | off 0/0 | -")
    state = GameState("pin", ("A", "B"), board, 0, ROLL)
    assert state.is_dead()
    done = state.roll(0, random.Random(1))
    assert done.result is not None and done.result.kind == "draw" and done.result.points == 0


def test_forced_plays_are_played_automatically() -> None:
    board, _ = parse_position("classic | 24:O13 13:X1 2:O2 1:X14 | bar 0/0 | res 0/0 | off 0/0 | -")
    state = GameState("classic", ("A", "B"), board, 0, MOVE, Roll(6, 5))
    advanced, auto = state.advance(random.Random(2))
    assert auto and auto[0].text == "13/7" and auto[0].auto and auto[0].seat == 0
    assert advanced.turn == 1 and advanced.last == auto[-1]


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    variant=st.sampled_from(
        ["classic", "pin-mother", "blocking-express", "dutch", "neverfinishing"]
    ),
)
def test_json_round_trip(seed: int, variant: str) -> None:
    for state, _, _ in random_decisions(variant, seed, max_decisions=60):
        again = GameState.from_json(state.to_json())
        assert again == state
        assert again.to_json() == state.to_json()


@pytest.mark.parametrize(
    "variant",
    ["classic", "pin", "pin-mother", "blocking", "blocking-express", "dutch", "neverfinishing"],
)
def test_match_play_ends_when_a_player_reaches_the_length(variant: str) -> None:
    rng = random.Random(variant)  # a str seed is stable across runs
    state = GameState.new(variant, ("A", "B"), rng, match_length=3)
    games = 1
    for _ in range(20000):
        if state.phase == MATCH_OVER:
            break
        if state.phase == GAME_OVER:
            # The match goes on only while nobody has 3 points.
            assert max(state.score) < 3
            state = state.next_game(rng)
            games += 1
        elif state.phase == ROLL:
            state = state.roll(state.turn, rng)
        elif state.phase == DOUBLE:
            state = state.take(state.mover, rng)
        else:
            plays = state.legal_plays()
            state = state._apply(min(plays, key=lambda p: p.after.pips("X")), rng, auto=False)
    assert state.phase == MATCH_OVER
    assert state.match_winner is not None and state.score[state.match_winner] >= 3
    assert state.game_number == games
    assert sum(1 for line in state.record if line.startswith("result:")) == games
    if variant in ("pin", "pin-mother") and state.result and state.result.kind != "mother":
        assert games == 1  # pip-count scores end a 3-point match at once


def test_pin_mother_plakoto_setup_option() -> None:
    state = GameState.new("pin-mother", ("A", "B"), random.Random(1), options=("plakoto",))
    board = state.board
    assert board.points[24] == "X" * 15 and board.points[1] == "O" * 15
    again = GameState.from_json(state.to_json())
    assert again.options == ("plakoto",) and again.rules.initial_position() == board
    # A state saved before options existed kept the setup in a field of its own.
    old = state.to_dict()
    del old["options"]
    old["setup"] = "plakoto"
    assert GameState.from_dict(old).options == ("plakoto",)


DUTCH_WITH_RESERVE = "dutch | 20:X1 1:O1 | bar 0/0 | res 14/14 | off 0/0 | unlocked X=no O=no | 31"


def test_dutch_must_enter_all_option() -> None:
    """A16: entering is optional once the bar is empty; the mustEnterAll option makes every
    step an entry while checkers remain in the reserve (the older rule)."""
    board, dice = parse_position(DUTCH_WITH_RESERVE)
    assert dice is not None
    plain = GameState("dutch", ("A", "B"), board, 0, MOVE, dice)
    strict = replace(plain, options=("mustEnterAll",))
    assert {p.text for p in plain.legal_plays()} == {
        "20/16",
        "bar/21",
        "bar/22 20/19",
        "bar/24 20/17",
        "bar/24 bar/22",
    }
    assert [p.text for p in strict.legal_plays()] == ["bar/24 bar/22"]
    with pytest.raises(IllegalPlayError):
        strict.play(0, "20/16", random.Random(1))
    assert GameState.from_json(strict.to_json()).options == ("mustEnterAll",)


def test_previous_winner_option_lets_the_winner_start() -> None:
    rng = random.Random(3)
    state = GameState.new("classic", ("A", "B"), rng, match_length=9, options=("previousWinner",))
    nxt = state.resign(1).next_game(rng)  # A wins the first game
    assert nxt.turn == 0 and any("won the previous game" in line for line in nxt.record)


def test_unknown_option_is_refused() -> None:
    with pytest.raises(GameError, match="mustEnterAll"):
        GameState.new("classic", ("A", "B"), random.Random(1), options=("mustEnterAll",))
    with pytest.raises(GameError):  # the previous winner starts in NeverFinishing already
        GameState.new("neverfinishing", ("A", "B"), random.Random(1), options=("previousWinner",))


def test_legal_plays_are_listed_once_per_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """A move lists the next player's plays once, however many times it asks (dead-position
    test, forced-play test, the play itself), and the list handed out is the caller's own."""
    import engine.game as game_module

    calls: list[int] = []
    real = game_module.legal_plays

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(game_module, "legal_plays", counting)
    rng = random.Random(4)
    state = GameState.new("pin", ("a", "b"), rng)
    first = state.legal_plays()
    assert len(calls) == 1
    first.clear()
    again = state.legal_plays()
    assert len(calls) == 1 and again and again == state.legal_plays()
    # A changed state (replace) lists its own plays; equality ignores the memo.
    other = replace(state, dice=Roll(6, 5))
    assert other.legal_plays() == real(other.position_for(other.mover), Roll(6, 5), other.rules)
    assert GameState.from_json(state.to_json()) == state
    # One whole move: the mover's plays come from the memo, the next player's are listed once.
    calls.clear()
    after = state.play(state.mover, again[0].text or "pass", rng)
    after, auto = after.advance(rng)
    assert len(calls) == 1 + len(auto)


def test_the_second_seats_board_is_flipped_once_per_state() -> None:
    rng = random.Random(7)
    state = GameState.new("pin", ("a", "b"), rng)
    state = state.play(state.mover, state.legal_plays()[0].text or "pass", rng)
    seen = state.position_for(1)
    assert seen == state.board.flip() and seen.flip() == state.board
    assert state.position_for(1) is seen and state.position_for(0) is state.board
    assert state.pips(1) == state.board.flip().pips(X)
    # A changed state (replace) flips its own board; equality and the JSON ignore the memo.
    moved = state.play(state.mover, state.legal_plays()[0].text or "pass", rng)
    assert moved.board != state.board and moved.position_for(1) == moved.board.flip()
    assert GameState.from_json(state.to_json()) == state
    other = replace(state, board=moved.board)
    assert other.position_for(1) == moved.board.flip()
