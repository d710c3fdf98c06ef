"""Analysis without Discord: the mistakes of a stored review page by page, /analyze (the plays
of any position ranked by rollouts) and deep hints.

Fair play: nothing here shows the computer's preference for a game still being played unless
hints are allowed in it (against the computer, or agreed at the challenge), and then only its
players may ask. Rollouts run in the computer players' worker processes
(``AIPool.rollout``), never on the event loop, under a time budget and a per-user limit.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from ai.error_scale import mistake_class
from ai.pool import AIPool, PoolError
from ai.pool import PoolBusy as AIPoolBusy
from ai.report import Verdict
from ai.rollout import Rollout
from app.errors import Refusal
from app.limits import Busy, Rate, RateLimiter
from app.records import GameRecords, state_or_none
from app.reports import GameInProgress, HintJob, equity_format, stored_mistakes
from app.table import GameTable
from engine import Dice, Position, Variant, get_variant, legal_plays, parse_position
from engine.errors import EngineError
from engine.history import PLAY, replay
from engine.text import format_position, parse_dice
from interop.gnubg import position_from_id
from storage import Game, Storage

log = logging.getLogger(__name__)

#: Rollout budget of /analyze and of a deep hint (seconds of one worker): Discord waits up to
#: 15 minutes for a deferred answer, players a few seconds.
ANALYZE_SECONDS = 4.0
DEEP_HINT_SECONDS = 4.0
#: Candidate plays rolled out (the best by the first look; the rest are not listed).
ANALYZE_CANDIDATES = 4
#: Turns each trial is played before the evaluation values the position reached, in every
#: variant (as the benchmark's rollouts, docs/benchmark.md). Whole games gave 2 to 6 trials a
#: play within the budget at a load of 9 on two cores (the variants' Python play-outs), and
#: bgsage's whole games several seconds a batch (``bench.deep_hint``, docs/analysis.md).
ROLLOUT_TURNS = 5
#: How long a request waits for a place in the workers' queue before it is refused as busy.
QUEUE_WAIT = 2.0
#: Per user: analyses and deep hints together (each takes a worker for seconds).
DEFAULT_ANALYSIS_RATE = Rate(3, 60)
#: Page "who" of the mistakes of both players (0 and 1 are the seats).
BOTH = 2
POSITION_FORMAT = (
    "A position text is `<variant> | <points> | bar X/O | res X/O | off X/O | <dice>`, X to "
    "play, e.g. `pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52` "
    "(docs/rules.md §12)."
)


# --- refusals ---------------------------------------------------------------------------------


class NotReviewed(Refusal):
    def __init__(self, game_id: int) -> None:
        super().__init__(f"Game #{game_id} has no stored review: use `/review game:{game_id}`.")


class BadAnalysisInput(Refusal):
    """/analyze was given something it cannot analyse; the message says what would do."""


class RolloutsFailed(Refusal):
    def __init__(self) -> None:
        super().__init__(
            "The rollouts did not finish in time: the computer is busy. Try again in a moment "
            "(`/hint` without `depth` gives a quick hint)."
        )


class AnalysisHidden(Refusal):
    def __init__(self) -> None:
        super().__init__(
            "That is the position of a game being played here without hints: the computer's "
            "preferences stay hidden until it is over (hints are allowed against the computer "
            "and when agreed at the challenge)."
        )


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MistakePage:
    game: Game
    #: 0 or 1: that player's mistakes; BOTH: the game's.
    who: int
    index: int
    mistakes: tuple[Verdict, ...]

    @property
    def rules(self) -> Variant:
        return get_variant(self.game.variant)


@dataclass(frozen=True)
class AnalysisJob:
    """A position checked for analysis (the rollout takes seconds)."""

    rules: Variant
    position: Position
    dice: Dice
    #: Where it comes from, for the answer ("game #4, move 12", "the position text").
    source: str


@dataclass(frozen=True)
class Analysis:
    job: AnalysisJob
    #: None: only one legal play.
    rollout: Rollout | None
    only_play: str = ""


# --- the service ------------------------------------------------------------------------------


class Analyst:
    """Review pages, /analyze and deep hints of one bot."""

    def __init__(
        self,
        db: Storage,
        table: GameTable,
        pool: AIPool,
        *,
        rate: Rate = DEFAULT_ANALYSIS_RATE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db = db
        self.table = table
        self.pool = pool
        self.games = GameRecords(db)
        self.limit = RateLimiter(rate, "analyses and deep hints", clock)

    # --- the mistakes of a review, page by page -------------------------------------------------

    async def mistake_page(
        self, guild_id: int | None, game_id: int, who: int, index: int
    ) -> MistakePage:
        """Page ``index`` of the worst mistakes (``who``: a seat or BOTH) of a reviewed game."""
        found = await self.games.on_server(guild_id, game_id)
        body = await self.db.get_review(found.id)
        if body is None:
            raise NotReviewed(found.id)
        mistakes = stored_mistakes(body)
        if mistakes is None:  # stored before verdicts kept their worth: judge it again
            raise NotReviewed(found.id)
        if who != BOTH:
            mistakes = [v for v in mistakes if v.seat == who]
        mistakes = sorted(mistakes, key=lambda v: -v.error)[:3]
        index = max(0, min(index, len(mistakes) - 1))
        return MistakePage(found, who, index, tuple(mistakes))

    @staticmethod
    def reader_of(game: Game, user_id: int) -> int:
        """Whose mistakes ``user_id`` browses: their own if they played, else both players'."""
        seat = GameTable.seat_of(game, user_id)
        return BOTH if seat is None else seat

    # --- /analyze -------------------------------------------------------------------------------

    async def analyze_job(
        self,
        guild_id: int | None,
        channel_id: int,
        user_id: int,
        *,
        game: int | None = None,
        move: int | None = None,
        position: str | None = None,
        gnubg: str | None = None,
        dice: str | None = None,
    ) -> AnalysisJob:
        """Check what /analyze was given (exactly one of a game with a move number, a
        position text, a gnubg position ID with dice) and whether it may be analysed now."""
        given = sum(x is not None for x in (game, position, gnubg))
        if given != 1:
            raise BadAnalysisInput(
                "Give one of: `game` with `move` (a move of a game here), `position` (a "
                "position text with its dice), or `gnubg` (a backgammon position ID) with "
                "`dice`."
            )
        if game is not None:
            job = await self._game_move(guild_id, user_id, game, move)
        elif position is not None:
            job = _position_text(position, dice)
        else:
            assert gnubg is not None
            job = _gnubg_position(gnubg, dice)
        await self._check_hidden(channel_id, user_id, job)
        self.limit.take(user_id)
        return job

    async def _game_move(
        self, guild_id: int | None, user_id: int, number: int, move: int | None
    ) -> AnalysisJob:
        found = await self.games.on_server(guild_id, number)
        state = state_or_none(found)
        if state is None or not state.record:
            raise BadAnalysisInput(f"Game #{found.id} has no move record to analyse.")
        if found.status == "active" and not (found.against_computer or found.hints):
            raise GameInProgress(found)
        if found.status == "active" and GameTable.seat_of(found, user_id) is None:
            raise BadAnalysisInput(
                f"Game #{found.id} is still being played: only its players may analyse it now."
            )
        plays = [d for d in replay(state) if d.kind == PLAY and d.play is not None]
        if move is None or not 1 <= move <= len(plays):
            raise BadAnalysisInput(
                f"Game #{found.id} has {len(plays)} moves: give `move` from 1 to {len(plays)}."
            )
        d = plays[move - 1]
        dice = d.before.current_dice()
        assert dice is not None
        return AnalysisJob(
            state.rules,
            d.before.position_for(d.seat),
            dice,
            f"game #{found.id}, move {move} ({state.players[d.seat]} to play)",
        )

    async def _check_hidden(self, channel_id: int, user_id: int, job: AnalysisJob) -> None:
        """A position text of the game a user is playing here, without hints: refused."""
        active = await self.db.get_active_game(channel_id)
        if active is None or active.against_computer or active.hints:
            return
        if GameTable.seat_of(active, user_id) is None:
            return
        state = self.table.state_of(active)
        if any(state.position_for(seat) == job.position for seat in (0, 1)):
            raise AnalysisHidden()

    async def analyze(self, job: AnalysisJob) -> Analysis:
        plays = legal_plays(job.position, job.dice, job.rules)
        if len(plays) == 1:
            return Analysis(job, None, plays[0].text or "no move")
        try:
            rolled = await rank_by_rollouts(
                self.pool, job.rules, job.position, job.dice, ANALYZE_SECONDS
            )
        except AIPoolBusy:
            raise Busy() from None
        except PoolError as exc:
            log.warning("analysis failed: %s", exc)
            raise RolloutsFailed() from exc
        return Analysis(job, rolled)

    # --- deep hints ------------------------------------------------------------------------------

    def deep_hint_applies(self, job: HintJob, user_id: int) -> bool:
        """Whether the hint's turn has a checker play to rank by rollouts (not a cube decision
        nor a single legal play); if so it counts against the user's limit (checked before
        any work starts, raising RateLimited)."""
        state = job.state
        dice = state.current_dice()
        if dice is None:
            return False
        if len(legal_plays(state.position_for(job.seat), dice, state.rules)) < 2:
            return False
        self.limit.take(user_id)
        return True

    async def deep_hint(self, job: HintJob) -> Rollout:
        """The plays of the hint's roll ranked by rollouts (see :meth:`deep_hint_applies`)."""
        state = job.state
        dice = state.current_dice()
        assert dice is not None
        try:
            return await rank_by_rollouts(
                self.pool, state.rules, state.position_for(job.seat), dice, DEEP_HINT_SECONDS
            )
        except AIPoolBusy:
            raise Busy() from None
        except PoolError as exc:  # over the budget and the pool's grace on a loaded machine
            log.warning("deep hint failed: %s", exc)
            raise RolloutsFailed() from exc


async def rank_by_rollouts(
    pool: AIPool, rules: Variant, position: Position, dice: Dice, seconds: float
) -> Rollout:
    """The best ``ANALYZE_CANDIDATES`` plays rolled out in ``seconds`` (/analyze and deep
    hints; ``bench.deep_hint`` times this very call). Raises the pool's errors."""
    return await pool.rollout(
        rules,
        position,
        dice,
        candidates=ANALYZE_CANDIDATES,
        truncate=ROLLOUT_TURNS,
        time_limit=seconds,
        wait=QUEUE_WAIT,
    )


# --- reading the inputs -----------------------------------------------------------------------


def _position_text(text: str, dice_text: str | None) -> AnalysisJob:
    try:
        pos, dice = parse_position(text)
        if dice_text is not None:
            dice = parse_dice(dice_text.strip(), pos.variant)
    except EngineError as exc:
        raise BadAnalysisInput(
            f"That position text cannot be read: {exc}. {POSITION_FORMAT}"
        ) from None
    if dice is None:
        raise BadAnalysisInput(
            "The position has no dice (its last field is `-`): end it with the roll to play, "
            "e.g. `| 63`, or give `dice`."
        )
    return AnalysisJob(get_variant(pos.variant), pos, dice, "the position text")


def _gnubg_position(text: str, dice_text: str | None) -> AnalysisJob:
    try:
        pos = position_from_id(text)
    except ValueError as exc:
        raise BadAnalysisInput(
            f"That is not a gnubg position ID: {exc}. It looks like `4HPwATDgc/ABMA` "
            "(gnubg's Position ID, backgammon only)."
        ) from None
    if dice_text is None:
        raise BadAnalysisInput("Give the `dice` to play with the gnubg position, e.g. `63`.")
    try:
        dice = parse_dice(dice_text.strip(), "classic")
    except EngineError:
        dice = None
    if dice is None:
        raise BadAnalysisInput(f"`{dice_text}` is not a roll: give two digits 1-6, e.g. `63`.")
    return AnalysisJob(get_variant("classic"), pos, dice, "the gnubg position")


# --- texts ------------------------------------------------------------------------------------


def rollout_lines(rolled: Rollout, unit: str) -> list[str]:
    """The rolled-out plays, best first: equity with its standard error, and how far each is
    behind the best (paired over the same dice)."""
    f = equity_format(unit)
    lines = []
    for i, r in enumerate(rolled.plays, start=1):
        behind = "" if i == 1 else f" ({r.diff:+{f}} ± {r.diff_se:{f}})"
        lines.append(f"{i}. `{r.play.text or 'no move'}`: {r.equity:+{f}} ± {r.se:{f}}{behind}")
    return lines


def rollout_settings(rolled: Rollout) -> str:
    players = "bgsage" if rolled.method == "bgsage" else "the 0-ply evaluation"
    length = (
        f"{rolled.truncate} turns each, then the evaluation"
        if rolled.truncate
        else "each to the end of the game"
    )
    return (
        f"{rolled.trials} trials per play played by {players} ({length}), the same dice for "
        f"every play, {rolled.seconds:.1f} s; ± is one standard error"
    )


def analysis_text(done: Analysis) -> str:
    job = done.job
    unit = job.rules.score_unit
    text = format_position(job.position, job.dice)
    head = f"**Analysis** of {job.source} ({job.rules.name}):\n`{text}`"
    if done.rollout is None:
        return f"{head}\nThe only legal play is **{done.only_play}**."
    lines = [head, f"Equity for the player to move, in {unit}s:"]
    lines += rollout_lines(done.rollout, unit)
    lines.append(f"Rollouts: {rollout_settings(done.rollout)}.")
    return "\n".join(lines)


def deep_hint_text(rolled: Rollout, unit: str) -> str:
    lines = [f"**Best plays by rollout** (equity for you in {unit}s):"]
    lines += rollout_lines(rolled, unit)
    lines.append(f"Rollouts: {rollout_settings(rolled)}.")
    return "\n".join(lines)


def mistake_page_text(page: MistakePage) -> str:
    rules = page.rules
    unit = rules.score_unit
    f = equity_format(unit)
    whose = "the game's" if page.who == BOTH else "your"
    if not page.mistakes:
        return f"Game #{page.game.id}: no mistakes found in {whose} plays."
    v = page.mistakes[page.index]
    kind = mistake_class(v.error) or "small"
    return "\n".join(
        [
            f"**Mistake {page.index + 1} of {len(page.mistakes)}** ({whose} worst, "
            f"game #{page.game.id}):",
            f"{v.line}",
            f"Played `{v.played}`: −{v.lost:{f}} {unit}s against the best play, "
            f"{v.error:.0f} thousandths of a game ({kind}).",
            f"Better: `{v.best}`",
        ]
    )


__all__ = [
    "BOTH",
    "Analysis",
    "AnalysisHidden",
    "AnalysisJob",
    "Analyst",
    "BadAnalysisInput",
    "MistakePage",
    "NotReviewed",
    "RolloutsFailed",
    "analysis_text",
    "deep_hint_text",
    "mistake_page_text",
    "rank_by_rollouts",
]
