"""Learning from games, without Discord: animated replays, post-game reviews and hints.

The renderer draws, the computer players (ai/ worker pool) judge; this module checks what was
asked, orchestrates the work and returns the texts and pictures to show. The heavy work never
runs on the event loop: replays are drawn in a worker process of their own, records replayed
and charts drawn on threads, the plays judged in the AI pool.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from ai.error_scale import BAD, DOUBTFUL, VERY_BAD, decision_worth, mistake_class
from ai.pool import AIPool, PoolError, ReviewDecision
from ai.pool import PoolBusy as AIPoolBusy
from ai.report import (
    PlayerReview,
    Verdict,
    class_counts,
    game_breaks,
    mistake_points,
    review_player,
    win_series,
    worst_mistakes,
)
from ai.types import STRONGEST, RankedPlay
from app.computer import match_context
from app.errors import NoGameHere, Refusal
from app.limits import DEFAULT_HINT_RATE, DEFAULT_REPORT_RATE, Busy, Rate, RateLimited, RateLimiter
from app.records import GameRecords, NoSuchGame, state_or_none
from app.settings import server_theme
from app.table import GameTable
from engine.errors import EngineError
from engine.game import DOUBLE, MOVE, ROLL, GameState
from engine.history import PLAY, Decision, replay
from render.chart import Mark, render_win_chart
from render.game_scene import chain_text, roll_text
from render.replay import MAX_BYTES, render_replay_json
from storage import Game, Storage
from workers import PoolBusy, WorkerError, WorkerPool

__all__ = [
    "CUBE_ADVICE",
    "Busy",
    "GameInProgress",
    "HintsOff",
    "NoGameHere",
    "NoSuchGame",
    "NotAPlayer",
    "NotYourTurn",
    "NothingToReplay",
    "NothingToReview",
    "PlayerReview",
    "RateLimited",
    "ReplayFailed",
    "Reports",
    "Review",
    "ReviewFailed",
    "decision_line",
    "hint_lines",
    "review_text",
    "win_chart_alt",
]

log = logging.getLogger(__name__)

#: The reports' worker runs below the bot's priority, like the computer players'.
REPORT_NICENESS = 19

#: Thinking time of a hint, and of each play of a review.
HINT_SECONDS = 1.5
REVIEW_SECONDS = 0.4
HINTS_REFUSED = (
    "Hints are off in this game. They are allowed against the computer, and in a game "
    "between people when both agreed at the challenge (`/challenge ... hints:true`, which "
    "makes the game unrated)."
)
#: Replays waiting for the reports' worker, all users together; one more is refused as busy
#: (each takes seconds, so a longer queue would only make everyone wait longer).
REPLAY_QUEUE = 4
#: How long a replay waits for a place in that queue before it is refused.
REPLAY_QUEUE_WAIT = 2.0
HINT_BUSY = "The computer is too busy to give a hint right now; try again in a moment."

#: bgsage's cube verdict as advice to the player about to roll.
CUBE_ADVICE = {
    "no double": "roll, no double",
    "too good": "roll: too good to double (play on for the gammon)",
    "double, take": "double (your opponent should take)",
    "double, pass": "double (your opponent should pass)",
}


# --- refusals ---------------------------------------------------------------------------------


class NothingToReplay(Refusal):
    def __init__(self, game: Game) -> None:
        super().__init__(f"Game #{game.id} has no move record to replay.")


class ReplayFailed(Refusal):
    def __init__(self, game: Game, exc: Exception) -> None:
        super().__init__(f"Game #{game.id} cannot be replayed: {exc}")


class NotAPlayer(Refusal):
    def __init__(self) -> None:
        super().__init__("Only the players of this game can ask for hints.")


class HintsOff(Refusal):
    def __init__(self) -> None:
        super().__init__(HINTS_REFUSED)


class NotYourTurn(Refusal):
    def __init__(self) -> None:
        super().__init__("Hints are for your own turn: it is not your turn.")


class GameInProgress(Refusal):
    def __init__(self, game: Game) -> None:
        super().__init__(f"Game #{game.id} is still being played: review it when it is over.")


class NothingToReview(Refusal):
    def __init__(self, game: Game) -> None:
        super().__init__(f"Game #{game.id} has no move record to review.")


class ReviewFailed(Refusal):
    def __init__(self, game: Game, exc: Exception) -> None:
        super().__init__(f"Game #{game.id} cannot be reviewed now: {exc}")


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """A game checked for a report (the work itself takes seconds)."""

    game: Game
    state: GameState


@dataclass(frozen=True)
class HintJob:
    game: Game
    state: GameState
    seat: int


@dataclass(frozen=True)
class Review:
    game: Game
    names: tuple[str, str]
    reviews: tuple[PlayerReview, PlayerReview]
    #: PNG: the first player's winning chances along the game, the listed mistakes marked.
    chart: bytes
    #: The chart's alt text (what a screen reader says for it): its key facts in words.
    chart_alt: str = ""
    #: Every play judged, in play order.
    verdicts: tuple[Verdict, ...] = ()

    def counts(self, seat: int) -> dict[str, int]:
        """``seat``'s mistakes by class."""
        return class_counts(self.verdicts, seat)


# --- the service ------------------------------------------------------------------------------


class Reports:
    """Replays, hints and reviews of one bot's games."""

    def __init__(
        self,
        db: Storage,
        table: GameTable,
        pool: AIPool,
        *,
        report_rate: Rate = DEFAULT_REPORT_RATE,
        hint_rate: Rate = DEFAULT_HINT_RATE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db = db
        self.table = table
        self.pool = pool
        self.games = GameRecords(db)
        #: One worker for long renders (replays), started at the first: a minute of drawing
        #: there does not slow the games being played meanwhile, and it dies with the bot.
        self.renderer = WorkerPool(
            1,
            name="reports",
            niceness=REPORT_NICENESS,
            autostart=True,
            queue_size=REPLAY_QUEUE,
        )
        #: Per user, checked before any work starts (replays and reviews share one budget).
        self.report_limit = RateLimiter(report_rate, "replays and reviews", clock)
        self.hint_limit = RateLimiter(hint_rate, "hints", clock)

    async def close(self) -> None:
        await self.renderer.close()

    # --- replays ------------------------------------------------------------------------------

    async def replay_job(self, guild_id: int | None, number: int, user_id: int) -> Job:
        """Check that the game can be replayed for ``user_id`` now (raises
        :class:`RateLimited` or :class:`Busy` rather than queue more work)."""
        found = await self.games.on_server(guild_id, number, user_id=user_id)
        state = state_or_none(found)
        if state is None or not state.record:
            raise NothingToReplay(found)
        if self.renderer.queued >= REPLAY_QUEUE:
            raise Busy()
        self.report_limit.take(user_id)
        return Job(found, state)

    async def replay(self, job: Job) -> bytes:
        """The animated GIF of the game, in the server's theme (like its boards)."""
        found = job.game
        theme = await server_theme(self.db, found.guild_id)
        try:
            gif: bytes = await self.renderer.run(
                render_replay_json,
                found.state_json,
                MAX_BYTES,
                theme,
                urgent=False,
                wait=REPLAY_QUEUE_WAIT,
            )
        except PoolBusy:
            raise Busy() from None
        except WorkerError as exc:  # the record could not be replayed, or its worker failed
            log.warning("replay of game %s failed: %s", found.id, exc)
            raise ReplayFailed(found, exc) from exc
        return gif

    # --- hints --------------------------------------------------------------------------------

    async def hint_job(self, channel_id: int, user_id: int) -> HintJob:
        """Check that ``user_id`` may have a hint in the channel's game now."""
        game = await self.db.get_active_game(channel_id)
        if game is None:
            raise NoGameHere()
        seat = GameTable.seat_of(game, user_id)
        if seat is None:
            raise NotAPlayer()
        if not (game.against_computer or game.hints):
            raise HintsOff()
        state = self.table.state_of(game)
        if state.mover != seat:
            raise NotYourTurn()
        self.hint_limit.take(user_id)
        return HintJob(game, state, seat)

    async def hint(self, job: HintJob) -> str:
        """The hint's text (a busy pool gives a text saying so)."""
        try:
            return await self._hint_text(job.state, job.seat)
        except PoolError as exc:
            log.warning("hint failed in game %s: %s", job.game.id, exc)
            return HINT_BUSY

    async def _hint_text(self, state: GameState, seat: int) -> str:
        pos = state.position_for(seat)
        match = match_context(state, seat)
        if state.phase == ROLL:
            cube = await self.pool.cube(pos, match, level=STRONGEST, time_limit=HINT_SECONDS)
            advice = CUBE_ADVICE.get(cube.action, "double" if cube.double else "roll, no double")
            return (
                f"**Cube**: {advice}. Your equity: no double "
                f"{cube.no_double:+.3f}, double/take {cube.double_take:+.3f}, double/pass "
                f"{cube.double_pass:+.3f}. Winning chance {cube.win:.1%} "
                f"(gammons {cube.gammon:.1%}, lost gammons {cube.gammon_loss:.1%})."
            )
        if state.phase == DOUBLE:
            doubler = state.turn
            cube = await self.pool.cube(
                state.position_for(doubler),
                match_context(state, doubler),
                level=STRONGEST,
                time_limit=HINT_SECONDS,
            )
            advice = "take" if cube.take else "pass"
            return (
                f"**Take or pass**: {advice}. Your equity after a take "
                f"{-cube.double_take:+.3f} against {-cube.double_pass:+.3f} for passing; "
                f"your winning chance {1 - cube.win:.1%}."
            )
        assert state.phase == MOVE
        dice = state.current_dice()
        assert dice is not None
        ranked = await self.pool.rank(
            state.rules, pos, dice, level=STRONGEST, match=match, time_limit=HINT_SECONDS
        )
        return hint_lines(ranked, state.rules.score_unit)

    # --- reviews ------------------------------------------------------------------------------

    async def review_job(self, guild_id: int | None, number: int, user_id: int) -> Job:
        found = await self.games.on_server(guild_id, number, user_id=user_id)
        state = state_or_none(found)
        if found.status == "active":
            raise GameInProgress(found)
        if state is None or not state.record:
            raise NothingToReview(found)
        self.report_limit.take(user_id)
        return Job(found, state)

    async def review(self, job: Job) -> Review:
        """Every play judged, each player's summary and the winning-chances chart."""
        found, state = job.game, job.state
        loop = asyncio.get_running_loop()
        try:
            judged = await loop.run_in_executor(None, decisions_to_judge, state)
            verdicts = await self._verdicts(state, judged)
        except AIPoolBusy:
            raise Busy() from None
        except (EngineError, PoolError) as exc:
            log.warning("review of game %s failed: %s", found.id, exc)
            raise ReviewFailed(found, exc) from exc
        names = state.players
        series = win_series(verdicts, 0)
        reviews = (review_player(verdicts, 0), review_player(verdicts, 1))
        unit = state.rules.score_unit
        f = equity_format(unit)
        marks = [
            Mark(i, v.seat, f"−{v.lost:{f}} {UNIT_SHORT.get(unit, unit)}")
            for i, v in mistake_points(verdicts, reviews)
        ]
        theme = await server_theme(self.db, found.guild_id)
        png = await self.table.draw(
            partial(
                render_win_chart,
                series,
                title=f"Game #{found.id}: winning chances of {names[0]}",
                label=names[0],
                breaks=game_breaks(verdicts),
                marks=marks,
                players=names,
                theme=theme,
            ),
        )
        alt = win_chart_alt(found.id, names, series, marks, unit)
        # Kept for the Previous/Next buttons of the mistakes (no second judging on a click).
        await self.db.save_review(found.id, review_body(verdicts), now=time.time())
        return Review(found, names, reviews, png, alt, tuple(verdicts))

    async def _verdicts(
        self, final: GameState, judged: list[tuple[Decision, float]]
    ) -> list[Verdict]:
        """Judge every play of :func:`decisions_to_judge` in the worker pool, one at a time:
        games in progress keep their share of the workers while a long review runs."""
        rules = final.rules
        verdicts = []
        for d, worth in judged:
            assert d.play is not None
            dice = d.before.current_dice()
            assert dice is not None
            pos = d.before.position_for(d.seat)
            match = match_context(d.before, d.seat)
            ranked = await self.pool.rank(
                rules,
                pos,
                dice,
                level=STRONGEST,
                match=match,
                time_limit=REVIEW_SECONDS,
                wait=None,
                background=True,  # games in progress go first
            )
            mine = next((r for r in ranked if r.play.after == d.play.after), None)
            best = ranked[0]
            if mine is None:
                raise EngineError("E_REVIEW", "a played move is not among the legal plays")
            luck = None
            if rules.has_cube and len(ranked) > 0:
                items = await self.pool.review(
                    rules,
                    [ReviewDecision(pos, dice, d.play.after, match)],
                    level=STRONGEST,
                    time_limit=REVIEW_SECONDS,
                )
                luck = items[0].luck if items and items[0] is not None else None
            verdicts.append(
                Verdict(
                    seat=d.seat,
                    game=d.game_number,
                    line=decision_line(final, d),
                    played=mine.play.text or "(no move)",
                    best=best.play.text or "(no move)",
                    lost=max(0.0, best.equity - mine.equity) if len(ranked) > 1 else 0.0,
                    win=mine.win,
                    luck=luck,
                    choices=len(ranked),
                    worth=worth,
                )
            )
        return verdicts


def decisions_to_judge(final: GameState) -> list[tuple[Decision, float]]:
    """The plays of a game's record, each with what it was worth (``ai.error_scale``: the
    scale of its error). Seconds for a long match: run it off the event loop."""
    out = []
    for d in replay(final):
        if d.kind != PLAY or d.play is None:
            continue
        pos = d.before.position_for(d.seat)
        out.append((d, decision_worth(final.rules, pos, match_context(d.before, d.seat))))
    return out


# --- texts ------------------------------------------------------------------------------------


def review_body(verdicts: Sequence[Verdict]) -> str:
    """The stored form of a review: each player's worst mistakes (``ai.report.MISTAKES``
    each; the game's worst are among them), as JSON."""
    kept = [v for seat in (0, 1) for v in worst_mistakes(verdicts, seat)]
    return json.dumps({"mistakes": [dataclasses.asdict(v) for v in kept]}, separators=(",", ":"))


def stored_mistakes(body: str) -> list[Verdict] | None:
    """The mistakes of :func:`review_body`; None for a body that cannot be read or was stored
    before verdicts kept their worth (the game is to be reviewed again)."""
    try:
        return [Verdict(**item) for item in json.loads(body)["mistakes"]]
    except (ValueError, TypeError, KeyError):
        return None


def decision_line(final: GameState, d: Decision) -> str:
    """A play as messages show it: "alice 6-5: 24/18 13/8", "bob three 4s: 8/4(3)" (the
    record file keeps its own notation)."""
    before = d.before
    if before.chain is not None:
        dice = chain_text(*before.chain.pending[0])
    elif before.dice is not None:
        dice = roll_text(before.dice.high, before.dice.low)
    else:
        return d.line
    played = d.play.text if d.play is not None and d.play.text else "no move"
    return f"{final.players[d.seat]} {dice}: {played}"


def equity_format(unit: str) -> str:
    """How equities of a variant scored in ``unit`` are written: points to three decimals,
    pips (the Pin games) to one: a pip is a thousandth of nothing there."""
    return ".1f" if unit == "pip" else ".3f"


#: Units as the chart's mistake notes write them, short to stay out of the curve's way.
UNIT_SHORT = {"point": "pt", "pip": "pips"}
#: Discord's longest attachment description.
ALT_LIMIT = 1024


def win_chart_alt(
    number: int, names: tuple[str, str], series: list[float], marks: list[Mark], unit: str
) -> str:
    """The review chart in words: what is plotted, where it starts, ends and turns, and each
    marked mistake with its move and the equity lost (in the variant's ``unit``)."""
    head = f"Line chart of {names[0]}'s winning chance in game #{number}"
    if not series:
        return head + ": no moves to show."
    low = min(range(len(series)), key=lambda i: series[i])
    high = max(range(len(series)), key=lambda i: series[i])
    parts = [
        f"{head}, move by move over {len(series)} moves (both players' moves, x axis; "
        f"winning chance in %, y axis): starts at {series[0]:.0%}, ends at {series[-1]:.0%}; "
        f"lowest {series[low]:.0%} at move {low + 1}, highest {series[high]:.0%} at move "
        f"{high + 1}."
    ]
    for seat in (0, 1):
        mine = [m for m in marks if m.seat == seat]
        if mine:
            listed = ", ".join(f"move {m.index + 1} ({m.note})" for m in mine)
            parts.append(f"{names[seat]}'s biggest mistakes ({unit}s lost): {listed}.")
    if not marks:
        parts.append("No mistakes marked.")
    out = " ".join(parts)
    return out if len(out) <= ALT_LIMIT else out[: ALT_LIMIT - 1] + "…"


def hint_lines(ranked: list[RankedPlay], unit: str = "point") -> str:
    """The best three plays with equity (in the variant's ``unit``) and winning chance, and
    how much worse the rest are."""
    f = equity_format(unit)
    if len(ranked) == 1:
        only = ranked[0].play.text or "pass (no legal move)"
        return f"Your only legal play is **{only}**: it is played for you."
    best = ranked[0]
    lines = [f"**Best plays** (equity for you in {unit}s; win = your winning chance):"]
    for i, r in enumerate(ranked[:3], start=1):
        win = f", win {r.win:.1%}" if r.win is not None else ""
        behind = "" if i == 1 else f" ({r.equity - best.equity:+{f}})"
        mark = "*" if best.searched and not r.searched else ""
        lines.append(f"{i}. `{r.play.text or 'pass'}`{mark}: {r.equity:+{f}}{behind}{win}")
    rest = ranked[3:]
    if rest:
        worst = best.equity - rest[-1].equity
        nearest = best.equity - rest[0].equity
        lines.append(
            f"The other {len(rest)} plays are {nearest:{f}} to {worst:{f}} {unit}s worse than "
            "the best."
            if len(rest) > 1
            else f"The other play is {nearest:{f}} {unit}s worse than the best."
        )
    if best.searched and any(not r.searched for r in ranked[:3]):
        lines.append("*Not searched deeply (only the closest plays are): a quick estimate.")
    return "\n".join(lines)


def review_text(
    review: PlayerReview, unit: str = "point", counts: dict[str, int] | None = None
) -> str:
    """A player's review: the error rate (mean equity lost per decision) in thousandths of a
    game, the benchmark's scale for every variant (``ai.error_scale``), with the mean and total
    in the variant's ``unit``; the performance rating; the mistakes by class; the biggest ones."""
    f = equity_format(unit)
    lines = [
        f"Decisions: {review.decisions} (+{review.forced} forced)",
        f"Error rate: {review.error_rate:.1f} thousandths of a game per decision "
        f"({review.average_lost:{f}} {unit}s a decision, {review.total_lost:{f}} in total)",
        f"Performance rating: {review.rating:.1f} (0 = perfect)",
    ]
    if counts is not None:
        lines.append(
            f"Mistakes: {counts[VERY_BAD]} very bad, {counts[BAD]} bad, {counts[DOUBTFUL]} doubtful"
        )
    if review.luck is not None:
        lines.append(f"Luck: {review.luck:+{f}} ({'lucky' if review.luck >= 0 else 'unlucky'})")
    else:
        lines.append("Luck: not measured for this variant")
    if review.mistakes:
        lines.append("Biggest mistakes:")
        for v in review.mistakes:
            kind = mistake_class(v.error) or "small"
            lines.append(f"• {v.line} (−{v.lost:{f}}, {kind}); better: `{v.best}`")
    else:
        lines.append("No mistakes found.")
    return "\n".join(lines)
