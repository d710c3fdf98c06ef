"""The bot's helper processes: boards are drawn in the render pool's workers, and no helper
process outlives the bot, however it stops."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from app.services import RENDER_WORKERS
from storage import Database
from tests.fake_discord import FakeDiscord
from tests.processes import wait_gone

from .harness import BotProcess, Table


def children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (zombies excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def cpu_ticks(pid: int) -> int:
    fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


async def helpers_of(process: BotProcess) -> list[int]:
    assert process.proc is not None
    # The render workers and the computer player's worker (multiprocessing's spawn children;
    # its resource tracker is one too).
    for _ in range(100):
        found = [p for p in children(process.proc.pid) if "multiprocessing" in cmdline(p)]
        if len(found) >= RENDER_WORKERS + 1:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"the bot has {found} as helper processes")


async def test_boards_are_drawn_in_the_render_workers(fake: FakeDiscord, tmp_path: Path) -> None:
    process = BotProcess(fake, tmp_path / "bot.sqlite3", seed=4)
    await process.start()
    db = await Database.open(tmp_path / "bot.sqlite3")
    try:
        assert process.proc is not None
        helpers = await helpers_of(process)
        before = {p: cpu_ticks(p) for p in helpers}
        table = Table(fake, db, fake.general, fake.add_user("alice"), fake.add_user("bob"))
        await table.challenge("pin")
        for _ in range(12):
            await table.step(use_buttons=False)
        assert len(table.boards) >= 10 and all(b.startswith(b"\x89PNG") for b in table.boards)
        # The workers did the drawing (a board costs milliseconds of their CPU each).
        spent = sum(cpu_ticks(p) - before[p] for p in helpers)
        assert spent > 0, "no helper process spent CPU time while boards were posted"
    finally:
        process.stop()
        await db.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
async def test_no_helper_outlives_the_bot(
    fake: FakeDiscord, tmp_path: Path, sig: signal.Signals
) -> None:
    process = BotProcess(fake, tmp_path / "bot.sqlite3", seed=4)
    await process.start()
    try:
        assert process.proc is not None
        helpers = await helpers_of(process)
        process.proc.send_signal(sig)
        await asyncio.to_thread(process.proc.wait, 20)
        assert wait_gone(helpers) == [], [cmdline(p) for p in helpers]
    finally:
        process.stop()
