"""A writer process for tests/storage/test_backup.py: creates a game, then plays a move in it,
again and again through :class:`storage.Storage`, printing the number of committed writes after
each one, until the file named by its second argument exists.

    python -m tests.storage.backup_writer DATABASE STOPFILE
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from storage import Database, NewMove

GUILD = 111
FIRST_CHANNEL = 1000


async def write(database: Path, stop: Path) -> None:
    db = await Database.open(database)
    try:
        writes = 0
        while not stop.exists():
            # Two transactions per round: a prefix of the writes may end between them.
            game = await db.create_game(
                GUILD, FIRST_CHANNEL + writes, "classic", 1, 2, "{}", now=1.0
            )
            writes += 1
            print(writes, flush=True)
            await db.commit_action(game.id, 0, '{"n": 1}', [NewMove(1, "play", "24/18")], now=2.0)
            writes += 1
            print(writes, flush=True)
    finally:
        await db.close()


if __name__ == "__main__":
    asyncio.run(write(Path(sys.argv[1]), Path(sys.argv[2])))
