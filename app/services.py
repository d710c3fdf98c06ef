"""What the use cases run on, opened once per process and closed with it: the database, the
game table, and the worker pools that draw boards and run the computer players.

Front ends (the Discord client, the demo, tests) open these through :func:`open_services`
rather than each opening storage and pools itself.
"""

from __future__ import annotations

import logging
import os
import random
import time
from dataclasses import dataclass

from ai.pool import AIPool
from app.config import Config
from app.table import GameTable
from render.pool import RenderPool

# Storage is re-exported: front ends type the database they are handed without importing it.
from storage import Storage as Storage
from storage import open_storage

log = logging.getLogger("backgammon")

#: Worker processes of the computer players (one: on a two-core machine the bot keeps the
#: other core; a decision is one core's work).
AI_WORKERS = 1
#: How much lower the workers' CPU priority is than the bot's (nice 10 against 0: when both
#: want a core the bot gets about nine tenths of it), so that the computer's thinking never
#: slows the replies of games between people.
AI_NICENESS = 10
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

    async def reserve_identify_slot(self, bucket: int, spacing: float) -> float:
        """When this process may IDENTIFY a shard of ``bucket`` (a slot reserved in the
        database shared by every process, ``spacing`` seconds after the previous one)."""
        return await self.db.reserve_identify_slot(bucket, now=time.time(), spacing=spacing)

    async def close(self) -> None:
        """Stop the workers, then close the database (never raises for a pool's sake)."""
        try:
            await self.ai_pool.close()
        finally:
            try:
                await self.render_pool.close()
            finally:
                await self.db.close()


async def open_services(config: Config) -> Services:
    """Open the database (migrations run here; on PostgreSQL, processes starting together
    apply them once), start the board-drawing workers (their picture caches built before the
    first command) and the computer players' workers (never on the event loop)."""
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
    return Services(db, table, render_pool, ai_pool)
