"""Property tests over random playouts of every variant (hypothesis picks the seeds)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import VARIANTS, express, get_variant, legal_plays, parse_play, parse_position
from engine.game import GAME_OVER, MATCH_OVER
from engine.movegen import _leaves
from engine.play import HIT
from engine.position import O, Position, X, make_position

from .playout import checker_totals, final_state, plain_run, random_decisions

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def covered_x(stack: str) -> int:
    """X checkers below the highest O checker of a stack: they cannot move this play."""
    top_o = stack.rfind(O)
    return stack[:top_o].count(X) if top_o > 0 else 0


@FAST
@given(seed=SEEDS, variant=st.sampled_from(sorted(VARIANTS)))
def test_random_playout_invariants(seed: int, variant: str) -> None:
    rules = get_variant(variant)
    for state, plays, _ in random_decisions(variant, seed, max_decisions=120):
        pos = state.position_for(state.mover)
        assert checker_totals(pos) == (15, 15)
        afters = [p.after for p in plays]
        assert len(set(afters)) == len(afters), "two listed plays have the same result"
        texts = [p.text for p in plays]
        assert len(set(texts)) == len(texts), "two plays share a canonical text"
        for play in plays:
            assert checker_totals(play.after) == (15, 15)
            # Canonical text round trip: the text denotes the same play.
            assert parse_play(pos, plays, play.text).after == play.after
            for p in range(1, 25):
                stack = play.after.points[p]
                assert rules.valid_stack(stack), (variant, p, stack)
                # A covered (pinned/trapped) X checker never moves during the play.
                before = pos.points[p]
                if covered_x(before):
                    assert stack.startswith(before[: before.rfind(O)]), (before, stack)
            if variant == "dutch":
                unlocked = pos.unlocked[0]
                for step in play.steps:
                    assert step.effect != HIT or unlocked, "Dutch hit while locked"
                    unlocked = unlocked or step.dst <= 6


@FAST
@given(seed=SEEDS, variant=st.sampled_from(sorted(VARIANTS)))
def test_random_games_end(seed: int, variant: str) -> None:
    state = final_state(variant, seed)
    assert state.phase in (GAME_OVER, MATCH_OVER), f"{variant} seed {seed} did not end"
    assert state.result is not None
    result = state.result
    if result.kind in ("tie", "draw"):
        assert result.winner is None and result.points == 0
    else:
        assert result.winner in (0, 1)
        assert result.points >= 1
        loser = state.position_for(1 - result.winner)
        if variant in ("blocking", "blocking-express"):
            assert result.points == 1
        elif variant in ("dutch", "neverfinishing"):
            assert result.points == (2 if loser.off[0] == 0 else 1)
        elif variant in ("pin", "pin-mother") and result.kind != "mother":
            multiplier = {"single": 1, "gammon": 2, "backgammon": 3}[result.kind]
            assert result.points == multiplier * loser.pips(X)
        elif variant == "classic":
            assert result.points == {"single": 1, "gammon": 2, "backgammon": 3}[result.kind]


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, variant=st.sampled_from(sorted(VARIANTS)))
def test_doubles_ordering_shortcut_finds_every_result(seed: int, variant: str) -> None:
    """Taking sources in non-increasing order (steps_commute) loses no play: compare it with
    the search over every order, on the positions of a random game, for every double."""
    rules = get_variant(variant)
    for state, _, _ in random_decisions(variant, seed, max_decisions=60):
        pos = state.position_for(state.mover)
        for die in range(1, 7):
            fast = _leaves(rules, pos, (die,) * 4)
            full = _leaves(rules, pos, (die,) * 4, use_order=False)
            # The ordered search may stop early on a branch (a shorter, never-maximal leaf);
            # the plays using the most dice must be exactly the same.
            best = max(len(leaf.steps) for leaf in full.values())
            assert max(len(leaf.steps) for leaf in fast.values()) == best
            assert {p for p, leaf in fast.items() if len(leaf.steps) == best} == {
                p for p, leaf in full.items() if len(leaf.steps) == best
            }


def test_ordered_doubles_search_hits_a_re_exposed_blot() -> None:
    """NeverFinishing: both trappers leave 19 (re-exposing the blot), then both checkers from 20
    land there, the first one hitting. No play in source order reaches that result (landing on
    19 first would find it still trapped), so the ordered search must try the hit out of order.
    """
    pos, dice = parse_position(
        "neverfinishing | 20:X2 19:O1+X2 6:X11 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 11"
    )
    assert dice is not None
    plays = legal_plays(pos, dice)
    hit_both_ways = [p for p in plays if p.after.points[19] == "XX" and p.after.points[18] == "XX"]
    assert [p.after.bar for p in hit_both_ways] == [(0, 1)]
    assert parse_play(pos, plays, "19/18(2) 20/19*(2)").after == hit_both_ways[0].after
    rules = get_variant("neverfinishing")
    full = _leaves(rules, pos, dice.numbers, use_order=False)
    assert set(_leaves(rules, pos, dice.numbers)) == set(full)


@settings(max_examples=15, deadline=None)
@given(seed=SEEDS)
def test_express_run_bounds_hold(seed: int) -> None:
    """The Express lookahead's upper bounds (pip room; the packing relaxation on counts) and its
    greedy run (a real run) hold, and the lookahead finds the same run length as the plain
    search, on the positions of a random game."""
    rules = get_variant("blocking-express")
    for state, _, _ in random_decisions("blocking-express", seed, max_decisions=40):
        pos = state.position_for(state.mover)
        for left in (24, 12, 8):
            plain = plain_run(rules, pos, left, {})
            if express._never_bears_off(pos):
                assert plain <= express._room_bound(pos, left)
            express.clear_caches()
            assert express.longest_run(rules, pos, left) == plain
            frozen = express._frozen(pos)
            played, counts = express._enter(frozen, express._counts(pos), pos.reserve[0], left)
            if played < left and pos.reserve[0] == played:
                rest = left - played
                assert played + frozen.bound(counts, rest) >= plain
                assert played + frozen.greedy(counts, rest) <= plain


def _random_frozen_board(rng: random.Random, covered_point: int) -> Position:
    """A random Blocking Express position for X's run, X's reserve empty: O's checkers on
    random points (owning some), two X checkers covered on ``covered_point`` (none if 0), a
    few free X checkers; the other checkers are borne off."""
    stacks: dict[int, str] = {}
    for point in rng.sample(range(1, 25), rng.randint(2, 8)):
        stacks[point] = O * rng.choice((1, 1, 2, 3))
    if covered_point:
        stacks[covered_point] = "XX" + O * rng.choice((1, 2))
    for _ in range(rng.randint(1, 6)):
        point = rng.randint(2, 24)
        if stacks.get(point, "").count(O) != 1:  # not onto a point O owns
            stacks[point] = stacks.get(point, "") + X
    on_board = "".join(stacks.values())
    off = (15 - on_board.count(X), 15 - on_board.count(O))
    return make_position("blocking-express", stacks, off=off)


@FAST
@given(seed=SEEDS)
def test_express_counts_search_matches_plain_search(seed: int) -> None:
    """On random frozen boards (covered checkers outside, inside or nowhere, so bearing off is
    impossible, possible, or winning), the search on counts agrees with the plain search: the
    bound is exact where X cannot bear off, and below or at a floor the search returns an
    upper bound not above the floor."""
    rules = get_variant("blocking-express")
    rng = random.Random(seed)
    independent = 0
    for _ in range(40):
        covered_point = rng.choice((0, rng.randint(7, 24), rng.randint(1, 6)))
        pos = _random_frozen_board(rng, covered_point)
        left = rng.randint(1, 24)
        plain = plain_run(rules, pos, left, {})
        express.clear_caches()
        frozen = express._frozen(pos)
        counts = express._counts(pos)
        bound = frozen.bound(counts, left)
        assert bound >= plain
        if frozen.first_off_value(counts, left) == 7:
            independent += 1
            assert bound == plain
        floor = rng.randint(-1, left)
        found = frozen.run(counts, left, floor)
        if plain > floor:
            assert found == plain
        else:
            assert plain <= found <= floor
        express.clear_caches()
        assert express.longest_run(rules, pos, left) == plain
    assert independent


@FAST
@given(seed=SEEDS)
def test_express_witness_is_a_real_run(seed: int) -> None:
    """The lookahead settles most plays with a run built from the relaxation's split of the
    numbers (``_Frozen.witness``): whenever it says a run of some length exists, the plain
    search finds one at least as long. On boards of the slow family (X covered in his home
    board, free checkers home and on their way) it also confirms the true run length often."""
    rules = get_variant("blocking-express")
    rng = random.Random(seed)
    confirmed = 0
    for _ in range(25):
        pos = _random_frozen_board(rng, rng.choice((0, rng.randint(1, 6), rng.randint(1, 6))))
        stacks = dict(enumerate(pos.points))
        for _ in range(rng.randint(0, 5)):  # more free checkers, home and outside
            point = rng.randint(1, rng.choice((6, 12, 18)))
            if stacks[point].count(O) != 1 and pos.off[0] > 1:
                stacks[point] += X
                pos = make_position(
                    pos.variant,
                    {p: s for p, s in stacks.items() if s},
                    off=(pos.off[0] - 1, pos.off[1]),
                )
        left = rng.randint(4, 24)
        plain = plain_run(rules, pos, left, {})
        express.clear_caches()
        frozen = express._frozen(pos)
        counts = express._counts(pos)
        for played in range(left + 1):
            if frozen.witness(counts, left, played):
                assert played <= plain
        confirmed += frozen.witness(counts, left, plain)
    assert confirmed
