"""The bot process: no token in its logs even at DEBUG, the health file, start-up timeout."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import health
from storage import Database
from tests.fake_discord import FakeDiscord

from .harness import ROOT, TIMEOUT, BotProcess, Table


async def test_debug_log_has_no_tokens(fake: FakeDiscord, tmp_path: Path) -> None:
    process = BotProcess(fake, tmp_path / "bot.sqlite3", log_level="DEBUG")
    await process.start()
    db = await Database.open(tmp_path / "bot.sqlite3")
    try:
        table = Table(fake, db, fake.general, fake.add_user("alice"), fake.add_user("bob"))
        click = await table.challenge("pin")
        handle = await fake.slash(table.alice, table.channel, "board")
        await handle.wait_initial(TIMEOUT)
        followup = await fake.slash(table.bob, table.channel, "rules", variant="dutch")
        await followup.wait_initial(TIMEOUT)
    finally:
        process.stop()
        await db.close()
    assert process.log_path is not None
    text = process.log_path.read_text()
    # The log really holds the payloads and webhook URLs that carried the tokens ...
    assert "INTERACTION_CREATE" in text and "[redacted]" in text
    assert "/interactions/" in text or "/webhooks/" in text
    # ... but not the tokens themselves.
    for secret in (fake.token, click.token, handle.token, followup.token):
        assert secret not in text


@pytest.fixture
def silent_server() -> Iterator[str]:
    """Accepts connections and never answers (a login that connects but gets no answer)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in accepted:
            conn.close()
        server.close()


def _run_bot(tmp_path: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, str(ROOT / "bot.py")],
        cwd=tmp_path,
        env={"DATABASE_PATH": str(tmp_path / "bg.sqlite3"), "LOG_LEVEL": "CRITICAL", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return result, time.monotonic() - started


def test_silent_api_start_up_times_out_with_one_line(tmp_path: Path, silent_server: str) -> None:
    env = {
        "DISCORD_TOKEN": "some-token",
        "DISCORD_API_BASE": f"http://{silent_server}/api/v10",
        "STARTUP_TIMEOUT": "2",
    }
    result, took = _run_bot(tmp_path, env)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no answer from Discord"), lines
    assert took < 30


async def test_silent_gateway_start_up_times_out(
    fake: FakeDiscord, tmp_path: Path, silent_server: str
) -> None:
    env = {**fake.env(), "DISCORD_GATEWAY_URL": f"ws://{silent_server}/", "STARTUP_TIMEOUT": "3"}
    result, _ = await asyncio.to_thread(_run_bot, tmp_path, env)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "no answer from Discord within 3 s" in lines[0], lines


def test_bad_startup_timeout_is_a_config_error(tmp_path: Path) -> None:
    for raw in ("0", "-5", "abc", "1e9", "nan"):
        result, _ = _run_bot(tmp_path, {"DISCORD_TOKEN": "t", "STARTUP_TIMEOUT": raw})
        assert result.returncode == 2
        assert result.stderr.startswith("error: STARTUP_TIMEOUT"), result.stderr


async def test_health_file_while_connected(fake: FakeDiscord, tmp_path: Path) -> None:
    status = tmp_path / "run" / "healthy"
    process = BotProcess(fake, tmp_path / "bot.sqlite3", extra_env={"HEALTH_FILE": str(status)})
    assert health.check(status) is not None  # missing before the bot runs
    await process.start()
    try:
        for _ in range(100):
            if status.exists():
                break
            await asyncio.sleep(0.05)
        assert health.check(status) is None
        checked = subprocess.run(
            [sys.executable, str(ROOT / "health.py"), str(status)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert checked.returncode == 0 and checked.stdout.strip() == "healthy"
    finally:
        process.stop()
    # A file the bot stopped touching a while ago is unhealthy.
    stale = tmp_path / "stale"
    stale.write_text("0\n")
    past = time.time() - 300
    os.utime(stale, (past, past))
    checked = subprocess.run(
        [sys.executable, str(ROOT / "health.py"), str(stale), "60"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 1 and checked.stdout.startswith("unhealthy"), checked.stdout


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_a_stop_signal_closes_the_bot_cleanly(
    fake: FakeDiscord, tmp_path: Path, sig: signal.Signals
) -> None:
    """``docker stop`` and systemd send SIGTERM (Ctrl-C: SIGINT): the bot closes its gateway
    connection, its worker pools and its database, removes its health file and exits 0,
    instead of dropping the connection (or, as a container's PID 1, ignoring the signal
    until the SIGKILL that follows)."""
    status = tmp_path / "healthy"
    process = BotProcess(fake, tmp_path / "bot.sqlite3", extra_env={"HEALTH_FILE": str(status)})
    await process.start()
    try:
        assert process.proc is not None and process.log_path is not None
        for _ in range(100):
            if status.exists():
                break
            await asyncio.sleep(0.05)
        assert status.exists()
        before = len(fake.gateway_close_codes)
        process.proc.send_signal(sig)
        assert await asyncio.to_thread(process.proc.wait, 20) == 0
        for _ in range(100):  # the fake's side of the socket may notice a moment later
            if len(fake.gateway_close_codes) > before:
                break
            await asyncio.sleep(0.05)
        # A close frame from the bot, not a dropped connection (1006). discord.py sends 4000
        # rather than its intended 1000 when its gateway reader is waiting, as it is here.
        assert fake.gateway_close_codes[before:] in ([1000], [4000])
        assert not status.exists()
        assert f"received {sig.name}, shutting down" in process.log_path.read_text()
    finally:
        process.stop()
