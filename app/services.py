"""What the use cases run on, opened once per process and closed with it: the database, the
game table, the worker pools that draw boards and run the computer players, and the use-case
services built on them.

Front ends (the Discord client, tests) open these through :func:`open_services` and hand the
services to their adapters, which never see the database themselves.
"""

from __future__ import annotations

import logging
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from ai.pool import AIPool
from app.analysis import Analyst
from app.challenges import Challenges
from app.computer import ComputerTurns
from app.config import Config, Shards
from app.league import League, Reminders
from app.limits import (
    DEFAULT_EXPENSIVE_RATE,
    DEFAULT_HINT_RATE,
    DEFAULT_REPORT_RATE,
    EXPENSIVE_COMMANDS,
    Rate,
    RateLimiter,
)
from app.play import Play
from app.puzzles import Puzzles
from app.reports import Reports
from app.seasons import Seasons
from app.settings import Preferences, ServerSettings
from app.table import GameTable
from app.tournaments import Tournaments
from render.pool import RenderPool

# Storage is re-exported: front ends type the database they are handed without importing it.
from storage import Storage as Storage
from storage import open_storage

log = logging.getLogger("backgammon")

#: Worker processes of the computer players (one: on a two-core machine the bot keeps the
#: other core; a decision is one core's work).
AI_WORKERS = 1
#: How much lower the workers' CPU priority is than the bot's (nice 19 against 0: when both
#: want a core the bot gets about 98 % of it), so that the computer's thinking never slows the
#: replies of games between people (at nice 10, a flood of hints and reviews still raised /move
#: p95 of other games by a fifth: bench/move_under_flood.py, docs/architecture.md).
AI_NICENESS = 19
#: Processes drawing the boards (painting and PNG encoding never run in the bot process): one
#: next to the bot's own core, a second one only where there are cores for it (measured by
#: bench/e2e.py --burst; each worker holds ~40 MB).
RENDER_WORKERS = max(1, min(2, (os.cpu_count() or 1) - 1))


@dataclass
class Services:
    db: Storage
    table: GameTable
    render_pool: RenderPool
    ai_pool: AIPool
    challenges: Challenges
    play: Play
    computer: ComputerTurns
    league: League
    reminders: Reminders
    server_settings: ServerSettings
    preferences: Preferences
    reports: Reports
    tournaments: Tournaments
    seasons: Seasons
    analyst: Analyst
    puzzles: Puzzles
    #: Per user, every expensive command together, checked by the front end before anything
    #: else (a flood is refused without a database query).
    front_door: RateLimiter

    async def reserve_identify_slot(self, bucket: int, spacing: float) -> float:
        """When this process may IDENTIFY a shard of ``bucket`` (a slot reserved in the
        database shared by every process, ``spacing`` seconds after the previous one)."""
        return await self.db.reserve_identify_slot(bucket, now=time.time(), spacing=spacing)

    async def synced_commands(self, scope: str) -> str | None:
        """The hash of the commands last synced to Discord in ``scope`` (None: never)."""
        return await self.db.get_bot_state(f"commands:{scope}")

    async def commands_synced(self, scope: str, digest: str) -> None:
        """Remember that the commands hashing to ``digest`` are synced in ``scope``."""
        await self.db.set_bot_state(f"commands:{scope}", digest, now=time.time())

    async def close(self) -> None:
        """Stop the computer's turns and every worker, then close the database (never raises
        for a pool's sake)."""
        await self.computer.close()
        try:
            await self.reports.close()
            await self.ai_pool.close()
        finally:
            try:
                await self.render_pool.close()
            finally:
                await self.db.close()


async def open_services(config: Config, computer_user: Callable[[], int]) -> Services:
    """Open the database (migrations run here; on PostgreSQL, processes starting together
    apply them once), start the board-drawing workers (their picture caches built before the
    first command) and the computer players' workers (never on the event loop), and build the
    use cases on them. ``computer_user``: the computer's user id (the bot's own, known once it
    is logged in)."""
    db = await open_storage(config.database_target)
    seed = config.dice_seed
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    render_pool = RenderPool(RENDER_WORKERS)
    try:
        await render_pool.start()
        table = GameTable(db, rng, renderer=render_pool)
        log.info("database %s (%s) ready", config.database_label, db.backend)
        ai_pool = AIPool(workers=AI_WORKERS, niceness=AI_NICENESS)
        await ai_pool.start()
    except BaseException:
        await render_pool.close()
        await db.close()
        raise
    return build_services(
        db,
        table,
        render_pool,
        ai_pool,
        computer_user,
        config.shards,
        report_rate=config.report_limit,
        hint_rate=config.hint_limit,
        expensive_rate=config.expensive_limit,
    )


def build_services(
    db: Storage,
    table: GameTable,
    render_pool: RenderPool,
    ai_pool: AIPool,
    computer_user: Callable[[], int],
    shards: Shards | None,
    *,
    report_rate: Rate = DEFAULT_REPORT_RATE,
    hint_rate: Rate = DEFAULT_HINT_RATE,
    expensive_rate: Rate = DEFAULT_EXPENSIVE_RATE,
) -> Services:
    """The use cases on an open database, table and pools."""

    def clock() -> float:
        return table.clock()  # read at each call: tests (and the bot) may replace it

    return Services(
        db=db,
        table=table,
        render_pool=render_pool,
        ai_pool=ai_pool,
        challenges=Challenges(db, table),
        play=Play(db, table),
        computer=ComputerTurns(table, ai_pool, computer_user, shards=lambda: shards),
        league=League(db, table, clock),
        reminders=Reminders(db, table, clock),
        server_settings=ServerSettings(db),
        preferences=Preferences(db, time.time),
        reports=Reports(db, table, ai_pool, report_rate=report_rate, hint_rate=hint_rate),
        tournaments=Tournaments(db, table, clock),
        seasons=Seasons(db, clock),
        analyst=Analyst(db, table, ai_pool),
        puzzles=Puzzles(db),
        front_door=RateLimiter(expensive_rate, EXPENSIVE_COMMANDS, clock),
    )
