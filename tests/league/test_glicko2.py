"""Glicko-2 against Glickman's published worked example, plus properties of single games."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from league import glicko2
from league.glicko2 import Rating, rate_game, update

# "Example of the Glicko-2 system" (Glickman, 2013), section "Example calculation": a player
# rated 1500, RD 200, volatility 0.06, tau = 0.5, plays three games in one rating period.
EXAMPLE_PLAYER = Rating(1500.0, 200.0, 0.06)
EXAMPLE_GAMES = [(1400.0, 30.0, 1.0), (1550.0, 100.0, 0.0), (1700.0, 300.0, 0.0)]
EXAMPLE_TAU = 0.5


def test_worked_example_final_values() -> None:
    # The paper's results: r' = 1464.06, RD' = 151.52, sigma' = 0.05999. The paper rounds its
    # intermediate values (mu' = -0.2069) before converting back, so the exact r' is 1464.0507:
    # within 0.01 of the printed 1464.06, and the printed RD/volatility are exact to their digits.
    new = update(EXAMPLE_PLAYER, EXAMPLE_GAMES, tau=EXAMPLE_TAU)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.rd == pytest.approx(151.52, abs=0.005)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)


def test_worked_example_glicko2_scale_values() -> None:
    # Step 7 of the paper, on the Glicko-2 scale: mu' = -0.2069, phi' = 0.8722 (4 decimals).
    new = update(EXAMPLE_PLAYER, EXAMPLE_GAMES, tau=EXAMPLE_TAU)
    assert (new.rating - 1500.0) / glicko2.SCALE == pytest.approx(-0.2069, abs=0.00005)
    assert new.rd / glicko2.SCALE == pytest.approx(0.8722, abs=0.00005)


def test_worked_example_intermediate_quantities() -> None:
    # Step 3's table: g(phi_j) = 0.9955, 0.9531, 0.7242 and E = 0.639, 0.432, 0.303.
    mu = 0.0
    phi = 200.0 / glicko2.SCALE
    table = []
    for opp_rating, opp_rd, score in EXAMPLE_GAMES:
        mu_j = (opp_rating - 1500.0) / glicko2.SCALE
        phi_j = opp_rd / glicko2.SCALE
        table.append((glicko2._g(phi_j), glicko2._expected(mu, mu_j, phi_j), score))
    assert [g for g, _, _ in table] == pytest.approx([0.9955, 0.9531, 0.7242], abs=0.00005)
    assert [e for _, e, _ in table] == pytest.approx([0.639, 0.432, 0.303], abs=0.0005)

    # The paper computes v = 1.7785 and delta = -0.4834 from those rounded table values (our
    # formulas, fed the rounded values, must give exactly the printed figures); unrounded, they
    # are 1.77898 and -0.48393, within 0.001 of the printed ones.
    def v_and_delta(rows: list[tuple[float, float, float]]) -> tuple[float, float]:
        v = 1.0 / sum(g * g * e * (1 - e) for g, e, _ in rows)
        return v, v * sum(g * (s - e) for g, e, s in rows)

    rounded_v, rounded_delta = v_and_delta([(round(g, 4), round(e, 3), s) for g, e, s in table])
    assert rounded_v == pytest.approx(1.7785, abs=0.00005)
    assert rounded_delta == pytest.approx(-0.4834, abs=0.00005)
    v, delta = v_and_delta(table)
    assert v == pytest.approx(1.7785, abs=0.001)
    assert delta == pytest.approx(-0.4834, abs=0.001)

    # Step 5: the Illinois iteration gives sigma' = 0.05999.
    sigma = glicko2._new_volatility(delta, phi, v, 0.06, EXAMPLE_TAU)
    assert sigma == pytest.approx(0.05999, abs=0.00001)


def test_no_games_only_widens_rd() -> None:
    # Glickman step 6 alone: phi' = sqrt(phi^2 + sigma^2); rating and volatility unchanged.
    new = update(EXAMPLE_PLAYER, [], tau=EXAMPLE_TAU)
    expected_phi = math.sqrt((200.0 / glicko2.SCALE) ** 2 + 0.06**2)
    assert new.rating == EXAMPLE_PLAYER.rating
    assert new.volatility == EXAMPLE_PLAYER.volatility
    assert new.rd == pytest.approx(expected_phi * glicko2.SCALE, rel=1e-12)
    assert new.rd > EXAMPLE_PLAYER.rd


def test_defaults_and_provisional_threshold() -> None:
    fresh = Rating()
    assert (fresh.rating, fresh.rd, fresh.volatility) == (1500.0, 350.0, 0.06)
    assert glicko2.DEFAULT_TAU == 0.75
    assert fresh.provisional
    assert Rating(1500.0, 110.01).provisional
    assert not Rating(1500.0, 110.0).provisional


def test_rate_game_uses_pre_game_ratings() -> None:
    a = Rating(1620.0, 120.0, 0.06)
    b = Rating(1480.0, 250.0, 0.059)
    new_a, new_b = rate_game(a, b, 0.0)
    assert new_a == update(a, [(b.rating, b.rd, 0.0)])
    assert new_b == update(b, [(a.rating, a.rd, 1.0)])


def test_draw_between_equals_keeps_ratings() -> None:
    a = Rating(1700.0, 90.0, 0.06)
    new_a, new_b = rate_game(a, a, glicko2.DRAW)
    assert new_a.rating == pytest.approx(1700.0, abs=1e-9)
    assert new_b.rating == pytest.approx(1700.0, abs=1e-9)
    assert new_a == new_b


def test_draw_moves_ratings_towards_each_other() -> None:
    strong, weak = Rating(1800.0, 100.0), Rating(1400.0, 100.0)
    new_strong, new_weak = rate_game(strong, weak, glicko2.DRAW)
    assert new_strong.rating < strong.rating
    assert new_weak.rating > weak.rating


def test_upset_moves_more_than_expected_win() -> None:
    strong, weak = Rating(1800.0, 100.0), Rating(1400.0, 100.0)
    expected_gain = rate_game(strong, weak, glicko2.WIN)[0].rating - strong.rating
    upset_gain = rate_game(weak, strong, glicko2.WIN)[0].rating - weak.rating
    assert 0 < expected_gain < upset_gain


@pytest.mark.parametrize(
    "bad",
    [
        lambda: update(Rating(), [(1500.0, 100.0, 0.7)]),
        lambda: update(Rating(), [(1500.0, 100.0, math.nan)]),
        lambda: update(Rating(), [(math.inf, 100.0, 1.0)]),
        lambda: update(Rating(), [(1500.0, 0.0, 1.0)]),
        lambda: update(Rating(), [(1500.0, 100.0, 1.0)], tau=0.0),
        lambda: rate_game(Rating(), Rating(), 2.0),
        lambda: Rating(1500.0, -5.0),
        lambda: Rating(math.nan),
        lambda: Rating(1500.0, 100.0, 0.0),
    ],
)
def test_bad_input_raises_value_error(bad: object) -> None:
    assert callable(bad)
    with pytest.raises(ValueError):
        bad()


# Any sane state: wide ranges for the properties that always hold.
ratings = st.builds(
    Rating,
    rating=st.floats(0.0, 3000.0),
    rd=st.floats(30.0, 350.0),
    volatility=st.floats(0.01, 0.15),
)
# The usual range of a league player (RD above the per-game equilibrium of about 60 that
# volatility 0.06 leads to, volatility at most the default).
typical = st.builds(
    Rating,
    rating=st.floats(1100.0, 1900.0),
    rd=st.floats(100.0, 350.0),
    volatility=st.floats(0.03, 0.06),
)
scores = st.sampled_from([glicko2.WIN, glicko2.DRAW, glicko2.LOSS])


@given(ratings, ratings)
def test_winner_gains_loser_loses(a: Rating, b: Rating) -> None:
    new_a, new_b = rate_game(a, b, glicko2.WIN)
    assert new_a.rating > a.rating
    assert new_b.rating < b.rating


@given(ratings, ratings, scores)
def test_symmetric(a: Rating, b: Rating, score: float) -> None:
    new_a, new_b = rate_game(a, b, score)
    swapped_b, swapped_a = rate_game(b, a, 1.0 - score)
    assert new_a == swapped_a
    assert new_b == swapped_b


@given(typical, typical, scores)
def test_rd_shrinks_after_a_game(a: Rating, b: Rating, score: float) -> None:
    # A game against a far weaker/stronger player (600+ points apart) says almost nothing, and
    # the per-period volatility term can then outweigh it.
    assume(abs(a.rating - b.rating) <= 400.0)
    new_a, new_b = rate_game(a, b, score)
    assert new_a.rd < a.rd
    assert new_b.rd < b.rd


@given(ratings, ratings, scores)
def test_results_stay_finite_and_positive(a: Rating, b: Rating, score: float) -> None:
    for new in rate_game(a, b, score):
        assert math.isfinite(new.rating)
        assert 0 < new.rd <= 350.0 * 1.01
        assert 0 < new.volatility < 1


@given(typical)
def test_draw_between_equals_changes_nothing_much(a: Rating) -> None:
    new_a, new_b = rate_game(a, a, glicko2.DRAW)
    assert abs(new_a.rating - a.rating) < 1e-6
    assert new_a == new_b
    assert new_a.rd < a.rd
    assert abs(new_a.volatility - a.volatility) < 0.001
