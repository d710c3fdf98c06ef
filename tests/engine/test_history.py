"""Replaying a stored record decision by decision (engine.history)."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest

from engine import VARIANTS
from engine.game import DOUBLE, GAME_OVER, MOVE, ROLL, GameState, distinct_names
from engine.history import ACCEPT, CLAIM, OFFER, PLAY, REJECT, RESIGN, HistoryError, replay


def random_match(
    variant: str,
    seed: int,
    *,
    names: tuple[str, str] = ("Ann", "Ann Lee"),
    length: int = 3,
    options: tuple[str, ...] = (),
    max_actions: int = 3000,
    offers: bool = False,
) -> GameState:
    """A random match with cube actions, the odd resignation (with ``offers``, also offers to
    resign: accepted, rejected or withdrawn), and games still in progress when
    ``max_actions`` runs out."""
    rng = random.Random(seed)
    state = GameState.new(variant, names, rng, match_length=length, options=options)
    for _ in range(max_actions):
        if state.resign_offer is not None:
            offerer = state.resign_offer[0]
            answer = rng.random()
            if answer < 0.3:
                state = state.accept_resign(1 - offerer)
            else:  # rejected by the opponent, or withdrawn by the player who offered
                state = state.reject_resign(offerer if answer > 0.8 else 1 - offerer)
        elif offers and state.phase in (ROLL, MOVE) and rng.random() < 0.004:
            levels = state.rules.resign_levels
            state = state.offer_resign(rng.choice((0, 1)), rng.randint(1, max(1, levels)))
        elif state.phase == GAME_OVER:
            state = state.next_game(rng)
        elif state.phase == ROLL:
            if state.can_double(state.turn) and rng.random() < 0.1:
                state = state.double(state.turn)
            else:
                state = state.roll(state.turn, rng)
        elif state.phase == DOUBLE:
            state = state.take(state.mover, rng) if rng.random() < 0.6 else state.drop(state.mover)
        elif state.phase == MOVE:
            if rng.random() < 0.003:
                state = state.resign(rng.choice((0, 1)))
            else:
                state = state.play(state.mover, rng.choice(state.legal_plays()).text, rng)
        else:
            break
    return state


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("seed", [1])
def test_every_decision_replays_to_the_stored_record(variant: str, seed: int) -> None:
    final = random_match(variant, seed)
    decisions = replay(final)
    assert decisions, "a match has decisions"
    # Consecutive: each decision starts where the previous one's lines end.
    for a, b in itertools.pairwise(decisions):
        assert b.before.record[: len(a.after.record)] == a.after.record
    plays = [d for d in decisions if d.kind == PLAY]
    play_lines = [
        line for line in final.record if line.startswith(("Ann ", "Ann Lee ")) and ": " in line
    ]
    assert [d.line for d in plays] == play_lines
    for d in plays:
        # "Ann Lee" (seat 1) also starts with "Ann": the longer name must win.
        assert d.line.startswith(final.players[d.seat] + " ")
        assert d.seat == 1 or not d.line.startswith("Ann Lee ")
        assert d.play is not None and d.before.phase == MOVE
        assert d.play.before == d.before.position_for(d.seat)
        assert d.line in final.record
    last = decisions[-1].after
    assert last.board == final.board and last.score == final.score


def test_match_with_claim_and_equal_names() -> None:
    rng = random.Random(5)
    state = GameState.new("classic", ("Sam", "Sam"), rng, match_length=5)
    for _ in range(6):
        if state.phase == ROLL:
            state = state.roll(state.turn, rng)
        state = state.play(state.mover, state.legal_plays()[0].text, rng)
    state = state.claim(1 - state.mover)
    decisions = replay(state)
    assert decisions[-1].kind == "claim"
    assert decisions[-1].after.match_winner == state.match_winner


def test_an_altered_record_is_refused() -> None:
    final = random_match("classic", 3, max_actions=40)
    lines = list(final.record)
    i = next(i for i, line in enumerate(lines) if ": " in line and line[0] == "A")
    head, _, _ = lines[i].partition(": ")
    lines[i] = head + ": 1/0"
    with pytest.raises(HistoryError):
        replay(replace(final, record=tuple(lines)))
    with pytest.raises(HistoryError):
        replay(replace(final, record=final.record[:-3]))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_offers_to_resign_and_dead_positions_replay(variant: str) -> None:
    """Offers to resign (accepted, rejected, withdrawn) are decisions of their own; a roll
    made before a rejected offer is the one the next play shows, and a roll that found a
    position dead does not take the next game's opening roll."""
    kinds: set[str] = set()
    for seed in (0, 2, 3, 5, 10, 13, 30):
        final = random_match(variant, seed, names=("Ann", "Bo"), length=1 + seed % 7, offers=True)
        decisions = replay(final)
        assert decisions[-1].after.record == final.record
        kinds |= {d.kind for d in decisions}
    if VARIANTS[variant].resign_levels > 1:
        assert {OFFER, ACCEPT, REJECT} <= kinds, kinds


def test_a_dead_position_draw_then_the_next_game() -> None:
    final = random_match("pin", 3, names=("Ann", "Bo"), length=4, offers=True)
    dead = final.record.index("result: draw (dead position)")
    assert final.record[dead + 1].startswith("game ")  # another game followed
    assert replay(final)[-1].after.record == final.record


def test_new_games_tell_namesakes_apart() -> None:
    assert distinct_names(("Sam", "Sam")) == ("Sam", "Sam (2)")
    assert distinct_names(("Sam", "Bo")) == ("Sam", "Bo")
    assert distinct_names(("Sam", "Sam (2)")) == ("Sam", "Sam (2)")


def seats_that_decided(final: GameState) -> list[tuple[str, int]]:
    return [(d.kind, d.seat) for d in replay(final) if d.kind in (RESIGN, ACCEPT, CLAIM)]


def resigning_match(variant: str, seed: int, names: tuple[str, str], games: int) -> GameState:
    """A match whose every game ends, after a few random plays, by a resignation, an
    accepted offer or a claim of a random seat (often the one not on turn)."""
    rng = random.Random(seed)
    state = GameState.new(variant, names, rng, match_length=games * 200)
    for game in range(games):
        for _ in range(rng.randint(0, 30)):
            if state.phase == ROLL:
                state = state.roll(state.turn, rng)
            if state.is_over:
                break
            state = state.play(state.mover, rng.choice(state.legal_plays()).text, rng)
            if state.is_over:
                break
        if not state.is_over:
            seat = rng.choice((0, 1))
            how = rng.random()
            if how < 0.2 and game == games - 1:
                state = state.claim(seat)  # ends the match
            elif how < 0.6 or state.rules.resign_levels == 1:
                state = state.resign(seat)
            else:
                state = state.offer_resign(seat, rng.randint(1, state.rules.resign_levels))
                state = state.accept_resign(1 - seat)
        if state.phase == GAME_OVER and game < games - 1:
            state = state.next_game(rng)
    return state


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_records_with_equal_names_replay_to_the_right_seats(variant: str) -> None:
    """Records stored before names were told apart: a resignation, an accepted offer or a
    claim out of turn names no seat, and the replay finds the seats that end as stored."""
    for seed in range(8):
        alike = resigning_match(variant, seed, ("Sam", "Sam"), games=1)
        apart = resigning_match(variant, seed, ("Sam", "Sam (2)"), games=1)
        assert alike.score == apart.score
        decisions = replay(alike)
        assert decisions[-1].after.record == alike.record
        assert decisions[-1].after.score == alike.score
        # The same game told apart shows who really decided: the replay agrees.
        assert seats_that_decided(alike) == seats_that_decided(apart)
    for seed in range(3):  # matches of several games, each ended out of turn or not
        alike = resigning_match(variant, seed, ("Sam", "Sam"), games=4)
        decisions = replay(alike)
        assert decisions[-1].after.record == alike.record
        assert decisions[-1].after.score == alike.score


def test_a_resignation_out_of_turn_with_equal_names_replays() -> None:
    """The failure seen in the bot: the player not on turn resigns (or offers a gammon that
    is accepted) and the replay gave the game to the wrong seat."""
    for variant, level in (("blocking", 1), ("classic", 2), ("pin", 3)):
        rng = random.Random(3)
        state = GameState.new(variant, ("Sam", "Sam"), rng)
        waiting = 1 - state.mover
        state = state.offer_resign(waiting, level)
        if state.resign_offer is not None:
            state = state.accept_resign(1 - waiting)
        decisions = replay(state)
        assert decisions[-1].after.score == state.score
        assert decisions[-1].seat == (waiting if level == 1 else 1 - waiting)


@pytest.mark.parametrize("other_name", ["Sam 52", "Sam offers to", "Sam takes", "Sam [6x4]:"])
@pytest.mark.parametrize("variant", ["classic", "pin", "blocking-express"])
def test_a_name_that_starts_with_the_other_name(variant: str, other_name: str) -> None:
    """ "Sam" and "Sam offers to": a line of Sam's may start with the other name too; the
    name that leaves a line the engine writes is the speaker."""
    for seed in (0, 1, 2):
        final = random_match(variant, seed, names=("Sam", other_name), offers=True, max_actions=600)
        plain = random_match(variant, seed, names=("Sam", "Bo"), offers=True, max_actions=600)
        decisions = replay(final)
        assert decisions[-1].after.record == final.record
        assert [(d.kind, d.seat) for d in decisions] == [(d.kind, d.seat) for d in replay(plain)]
