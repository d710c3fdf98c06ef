"""Glicko-2 rating system, as in Mark Glickman's "Example of the Glicko-2 system" (2013).

Pure Python, stdlib only. Ratings are on the Glicko (Elo-like) scale: a new player is 1500 with
rating deviation (RD) 350 and volatility 0.06. The system constant ``tau`` limits how fast the
volatility may change; Glickman suggests 0.3..1.2, lichess uses 0.75 (our default).

Scores: 1 = win, 0 = loss, 0.5 = draw. A backgammon game that ends with **0 points** (a
``pin-mother`` tie when both mothers are pinned, or a dead-position draw in a covering variant)
has no winner, so it is rated as a draw: 0.5 for each side. The number of points won (gammons,
pips, cube) does not change the rating update: Glicko-2 only knows win / draw / loss.

Like lichess, the bot rates every game as soon as it ends, as its own one-game rating period,
each player against the opponent's rating *before* the game (:func:`rate_game`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

#: Factor between the Glicko scale and the Glicko-2 internal scale (Glickman, step 2).
SCALE = 173.7178
DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
DEFAULT_VOLATILITY = 0.06
#: lichess's system constant.
DEFAULT_TAU = 0.75
#: Convergence tolerance of the volatility iteration (Glickman, step 5).
EPSILON = 0.000001
#: lichess shows a rating as provisional ("?") while its RD is above this.
PROVISIONAL_RD = 110.0

WIN = 1.0
DRAW = 0.5
LOSS = 0.0
_SCORES = (LOSS, DRAW, WIN)

#: Guards the Illinois iteration against a pathological non-convergence (it converges in a
#: handful of steps for any sane input).
_MAX_ITERATIONS = 1000


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's Glicko-2 state on the Glicko scale."""

    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY

    def __post_init__(self) -> None:
        _check_finite("rating", self.rating)
        _check_positive("rd", self.rd)
        _check_positive("volatility", self.volatility)

    @property
    def provisional(self) -> bool:
        return is_provisional(self.rd)


def is_provisional(rd: float) -> bool:
    """True while the rating is too uncertain to be shown as established (lichess: RD > 110)."""
    return rd > PROVISIONAL_RD


def _check_finite(name: str, value: float) -> None:
    if not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")


def _check_positive(name: str, value: float) -> None:
    _check_finite(name, value)
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")


def _check_score(score: float) -> None:
    if score not in _SCORES:
        raise ValueError(f"score must be 0, 0.5 or 1, got {score!r}")


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5: solve f(x) = 0 for x = ln(sigma'^2) with the Illinois (regula falsi) algorithm."""
    a = math.log(sigma * sigma)
    delta2 = delta * delta
    phi2 = phi * phi
    tau2 = tau * tau

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / tau2

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
            if k > _MAX_ITERATIONS:  # pragma: no cover - f(a - k*tau) grows without bound
                break
        big_b = a - k * tau
    f_a = f(big_a)
    f_b = f(big_b)
    for _ in range(_MAX_ITERATIONS):
        if abs(big_b - big_a) <= EPSILON:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        # "<= 0" as in the 2013 text: with "< 0" an exact root at C would stall the iteration.
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(
    player: Rating,
    results: Iterable[tuple[float, float, float]],
    *,
    tau: float = DEFAULT_TAU,
) -> Rating:
    """Rate ``player`` over one rating period.

    ``results`` holds one ``(opponent rating, opponent RD, score)`` per game, ``score`` being 1
    (win), 0.5 (draw, including a 0-point tie) or 0 (loss). With no games, only the RD grows
    (Glickman, step 6 applied alone). Raises ``ValueError`` on a non-finite number, a
    non-positive RD/volatility/tau or a score outside {0, 0.5, 1}.
    """
    _check_positive("tau", tau)
    games: list[tuple[float, float, float]] = []
    for opp_rating, opp_rd, score in results:
        _check_finite("opponent rating", opp_rating)
        _check_positive("opponent rd", opp_rd)
        _check_score(score)
        games.append((opp_rating, opp_rd, score))

    # Step 2: convert to the Glicko-2 scale.
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not games:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, phi_star * SCALE, sigma)

    # Steps 3 and 4: estimated variance v and improvement delta.
    v_inv = 0.0
    improvement = 0.0
    for opp_rating, opp_rd, score in games:
        mu_j = (opp_rating - DEFAULT_RATING) / SCALE
        phi_j = opp_rd / SCALE
        g_j = _g(phi_j)
        e_j = _expected(mu, mu_j, phi_j)
        v_inv += g_j * g_j * e_j * (1.0 - e_j)
        improvement += g_j * (score - e_j)
    v = 1.0 / v_inv
    delta = v * improvement

    # Step 5: new volatility.
    new_sigma = _new_volatility(delta, phi, v, sigma, tau)

    # Steps 6 and 7: pre-period RD, then the new RD and rating.
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement

    # Step 8: back to the Glicko scale.
    return Rating(SCALE * new_mu + DEFAULT_RATING, SCALE * new_phi, new_sigma)


def rate_game(
    first: Rating,
    second: Rating,
    first_score: float,
    *,
    tau: float = DEFAULT_TAU,
) -> tuple[Rating, Rating]:
    """Rate one game between two players, each against the other's pre-game rating.

    ``first_score`` is 1 if ``first`` won, 0 if ``second`` won, 0.5 for a draw or a 0-point tie.
    Returns the new ratings of ``(first, second)``.
    """
    _check_score(first_score)
    new_first = update(first, [(second.rating, second.rd, first_score)], tau=tau)
    new_second = update(second, [(first.rating, first.rd, 1.0 - first_score)], tau=tau)
    return new_first, new_second


def expected_score(player: Rating, opponent: Rating) -> float:
    """The player's expected score against the opponent, as Glicko-2 estimates it (step 3's E)."""
    return _expected(
        (player.rating - DEFAULT_RATING) / SCALE,
        (opponent.rating - DEFAULT_RATING) / SCALE,
        opponent.rd / SCALE,
    )


__all__ = (
    "DEFAULT_RATING",
    "DEFAULT_RD",
    "DEFAULT_TAU",
    "DEFAULT_VOLATILITY",
    "DRAW",
    "LOSS",
    "PROVISIONAL_RD",
    "WIN",
    "Rating",
    "expected_score",
    "is_provisional",
    "rate_game",
    "update",
)
