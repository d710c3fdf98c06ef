"""Applying one rated game to the players' rating rows (Glicko-2 plus the statistics), shared
by every storage backend. Pure: rows in, rows out; the backends read and write them."""

from __future__ import annotations

from league import glicko2
from storage.models import MatchResult, PlayerStats

StatsKey = tuple[int, str, int]  # (guild_id, variant, user_id)


def new_stats(key: StatsKey) -> PlayerStats:
    """The row of a player who has not finished a game in this (guild, variant) yet."""
    guild_id, variant, user_id = key
    default = glicko2.Rating()
    return PlayerStats(guild_id, variant, user_id, default.rating, default.rd, default.volatility)


def after_game(
    prev: PlayerStats,
    rating: glicko2.Rating,
    *,
    score: float,
    points_for: int,
    points_against: int,
    kind: str,
    now: float,
) -> PlayerStats:
    """A player's row after one rated game (score 1 win, 0.5 draw/tie, 0 loss)."""
    wins, losses, draws = prev.wins, prev.losses, prev.draws
    gammons, backgammons, mothers = prev.gammons_won, prev.backgammons_won, prev.mother_wins
    if score == glicko2.WIN:
        wins += 1
        streak = max(prev.current_streak, 0) + 1
        gammons += kind == "gammon"
        backgammons += kind == "backgammon"
        mothers += kind == "mother"
    elif score == glicko2.LOSS:
        losses += 1
        streak = min(prev.current_streak, 0) - 1
    else:
        draws += 1
        streak = 0
    # The constructor, not dataclasses.replace: this runs 4 times per game in bulk imports.
    return PlayerStats(
        guild_id=prev.guild_id,
        variant=prev.variant,
        user_id=prev.user_id,
        rating=rating.rating,
        rd=rating.rd,
        volatility=rating.volatility,
        games=prev.games + 1,
        wins=wins,
        losses=losses,
        draws=draws,
        points_won=prev.points_won + points_for,
        points_lost=prev.points_lost + points_against,
        gammons_won=gammons,
        backgammons_won=backgammons,
        mother_wins=mothers,
        current_streak=streak,
        best_streak=max(prev.best_streak, streak),
        last_played_at=now,
    )


def rate(
    stats_x: PlayerStats,
    stats_o: PlayerStats,
    result: MatchResult,
    scores: tuple[int, int],
    now: float,
    tau: float,
) -> tuple[PlayerStats, PlayerStats]:
    """Rate one finished game (both sides against each other's pre-game rating)."""
    if result.winner_id is None:
        score_x = glicko2.DRAW
    else:
        score_x = glicko2.WIN if result.winner_id == stats_x.user_id else glicko2.LOSS
    new_x, new_o = glicko2.rate_game(stats_x.glicko, stats_o.glicko, score_x, tau=tau)
    after_x = after_game(
        stats_x,
        new_x,
        score=score_x,
        points_for=scores[0],
        points_against=scores[1],
        kind=result.kind,
        now=now,
    )
    after_o = after_game(
        stats_o,
        new_o,
        score=1.0 - score_x,
        points_for=scores[1],
        points_against=scores[0],
        kind=result.kind,
        now=now,
    )
    return after_x, after_o
