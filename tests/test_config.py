"""Configuration loading (app/config.py), start-up failures of bot.py and the slash-command error
boundary (discord_ui/boundary.py)."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord import app_commands

import bot
from app.config import Config, ConfigError, load_config
from app.errors import Refusal
from discord_ui.boundary import ErrorBoundaryTree
from discord_ui.client import BackgammonBot
from storage import Shards

BOT_SCRIPT = Path(bot.__file__).resolve()
# A safety net so a hung bot cannot hang the test run; it is not a speed requirement.
SUBPROCESS_TIMEOUT = 120


def make_env(tmp_path: Path, **overrides: str) -> dict[str, str]:
    env = {"DISCORD_TOKEN": "token-123", "DATABASE_PATH": str(tmp_path / "bg.sqlite3")}
    env.update(overrides)
    return env


# --- DISCORD_TOKEN -------------------------------------------------------------------------


def test_missing_token_is_explained(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    del env["DISCORD_TOKEN"]
    with pytest.raises(ConfigError) as info:
        load_config(env)
    message = str(info.value)
    assert "DISCORD_TOKEN is not set" in message
    assert ".env.example" in message


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_blank_token_is_rejected(tmp_path: Path, blank: str) -> None:
    with pytest.raises(ConfigError, match="DISCORD_TOKEN is blank"):
        load_config(make_env(tmp_path, DISCORD_TOKEN=blank))


def test_token_surrounding_whitespace_is_dropped(tmp_path: Path) -> None:
    assert load_config(make_env(tmp_path, DISCORD_TOKEN="  abc.def  ")).token == "abc.def"


# --- defaults ------------------------------------------------------------------------------


def test_defaults_apply_when_only_the_token_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config({"DISCORD_TOKEN": "tok"})
    assert config == Config(
        token="tok",
        database_path=Path("data") / "backgammon.sqlite3",
        api_base=None,
        gateway_url=None,
        guild_id=None,
        log_level="INFO",
    )


def test_empty_optional_values_mean_unset(tmp_path: Path) -> None:
    # .env.example ships the optional settings as `NAME=`.
    config = load_config(
        make_env(
            tmp_path,
            DISCORD_API_BASE="",
            DISCORD_GATEWAY_URL=" ",
            DISCORD_GUILD_ID="",
            LOG_LEVEL="",
        )
    )
    assert (config.api_base, config.gateway_url, config.guild_id) == (None, None, None)
    assert config.log_level == "INFO"


def test_config_is_frozen(tmp_path: Path) -> None:
    config = load_config(make_env(tmp_path))
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.token = "other"  # type: ignore[misc]


# --- DATABASE_PATH -------------------------------------------------------------------------


def test_database_parent_that_is_a_file_is_rejected(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    target = blocker / "bg.sqlite3"
    with pytest.raises(ConfigError) as info:
        load_config(make_env(tmp_path, DATABASE_PATH=str(target)))
    message = str(info.value)
    assert str(target) in message
    assert "not a directory" in message


def test_database_below_a_file_deeper_down_is_rejected(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    target = blocker / "sub" / "dir" / "bg.sqlite3"
    with pytest.raises(ConfigError, match="not a directory") as info:
        load_config(make_env(tmp_path, DATABASE_PATH=str(target)))
    assert str(blocker) in str(info.value)


def test_database_path_that_is_a_directory_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory") as info:
        load_config(make_env(tmp_path, DATABASE_PATH=str(tmp_path)))
    assert str(tmp_path) in str(info.value)


def test_missing_database_directories_are_accepted_but_not_created(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "bg.sqlite3"
    config = load_config(make_env(tmp_path, DATABASE_PATH=str(target)))
    assert config.database_path == target
    assert not (tmp_path / "a").exists()


def test_existing_database_file_is_accepted(tmp_path: Path) -> None:
    target = tmp_path / "bg.sqlite3"
    target.write_bytes(b"")
    assert load_config(make_env(tmp_path, DATABASE_PATH=str(target))).database_path == target


def test_unwritable_database_directory_is_rejected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests may run as root, for whom chmod does not deny writes; simulate the OS answer.
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access

    def access(path: Any, mode: int, **kwargs: Any) -> bool:
        if Path(path) == locked and mode & os.W_OK:
            return False
        return real_access(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", access)
    with pytest.raises(ConfigError, match="not writable") as info:
        load_config(make_env(tmp_path, DATABASE_PATH=str(locked / "new" / "bg.sqlite3")))
    assert str(locked) in str(info.value)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores chmod")
def test_chmod_read_only_database_directory_is_rejected(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(ConfigError, match="not writable"):
            load_config(make_env(tmp_path, DATABASE_PATH=str(locked / "bg.sqlite3")))
    finally:
        locked.chmod(0o700)


# --- DISCORD_API_BASE / DISCORD_GATEWAY_URL -------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://discord.com/api/v10", "https://discord.com/api/v10"),
        ("http://127.0.0.1:8080/api/v9/", "http://127.0.0.1:8080/api/v9"),
        ("https://proxy.example/discord/api/v10", "https://proxy.example/discord/api/v10"),
    ],
)
def test_valid_api_base_is_normalised(tmp_path: Path, raw: str, expected: str) -> None:
    assert load_config(make_env(tmp_path, DISCORD_API_BASE=raw)).api_base == expected


@pytest.mark.parametrize(
    "raw",
    [
        "discord.com/api/v10",
        "ftp://discord.com/api/v10",
        "https://discord.com/api",
        "https://discord.com/api/vX",
        "https://discord.com/api/v10/users",
        "https://discord.com/api/v10?x=1",
        "https:///api/v10",
        "not a url",
    ],
)
def test_bad_api_base_is_rejected(tmp_path: Path, raw: str) -> None:
    with pytest.raises(ConfigError, match="DISCORD_API_BASE") as info:
        load_config(make_env(tmp_path, DISCORD_API_BASE=raw))
    assert "/api/v<N>" in str(info.value)


@pytest.mark.parametrize("raw", ["wss://gateway.discord.gg/", "ws://127.0.0.1:9000"])
def test_valid_gateway_url_is_kept(tmp_path: Path, raw: str) -> None:
    assert load_config(make_env(tmp_path, DISCORD_GATEWAY_URL=raw)).gateway_url == raw


@pytest.mark.parametrize(
    "raw", ["https://gateway.discord.gg", "gateway.discord.gg", "wss://", "tcp://127.0.0.1:1"]
)
def test_bad_gateway_url_is_rejected(tmp_path: Path, raw: str) -> None:
    with pytest.raises(ConfigError, match=r"DISCORD_GATEWAY_URL.*ws://"):
        load_config(make_env(tmp_path, DISCORD_GATEWAY_URL=raw))


# --- DISCORD_GUILD_ID / LOG_LEVEL -----------------------------------------------------------


@pytest.mark.parametrize("raw", ["abc", "12.5", "-5", "0", "1e5", "0x10", "1²", "①", "١٢"])
def test_non_integer_guild_id_is_rejected(tmp_path: Path, raw: str) -> None:
    with pytest.raises(ConfigError, match="DISCORD_GUILD_ID") as info:
        load_config(make_env(tmp_path, DISCORD_GUILD_ID=raw))
    assert repr(raw) in str(info.value)


def test_guild_id_is_parsed(tmp_path: Path) -> None:
    config = load_config(make_env(tmp_path, DISCORD_GUILD_ID=" 123456789012345678 "))
    assert config.guild_id == 123456789012345678


@pytest.mark.parametrize("raw", ["verbose", "5", "INFOO", "warn ing"])
def test_bad_log_level_is_rejected(tmp_path: Path, raw: str) -> None:
    with pytest.raises(ConfigError, match="LOG_LEVEL") as info:
        load_config(make_env(tmp_path, LOG_LEVEL=raw))
    assert "DEBUG, INFO, WARNING, ERROR, CRITICAL" in str(info.value)


@pytest.mark.parametrize("raw", ["debug", "Warning", "CRITICAL", " error "])
def test_log_level_is_case_insensitive(tmp_path: Path, raw: str) -> None:
    assert load_config(make_env(tmp_path, LOG_LEVEL=raw)).log_level == raw.strip().upper()


# --- DATABASE_URL, SHARD_COUNT, SHARD_IDS ----------------------------------------------------


def test_database_url_selects_postgresql_and_skips_the_path_check(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    url = "postgresql://bot:pw@db.example:5432/backgammon"
    # DATABASE_PATH would be rejected (below a file) but is not used with DATABASE_URL.
    config = load_config(make_env(tmp_path, DATABASE_URL=url, DATABASE_PATH=str(blocker / "d")))
    assert config.database_url == url
    assert config.database_target == url
    assert config.database_label == "postgresql://bot:***@db.example:5432/backgammon"
    assert load_config(make_env(tmp_path)).database_target == tmp_path / "bg.sqlite3"
    for local in ("postgresql:///backgammon?host=/run/postgresql", "postgres:///backgammon"):
        assert load_config(make_env(tmp_path, DATABASE_URL=local)).database_url == local


@pytest.mark.parametrize(
    "raw",
    [
        "sqlite:///x.db",
        "mysql://u:secretpw@h/db",
        "postgresql://u:secretpw@h:port/db",
        "postgresql://u:secretpw@h:99999999/db",
        "data/bot.sqlite3",
    ],
)
def test_bad_database_url_is_rejected_without_its_password(tmp_path: Path, raw: str) -> None:
    with pytest.raises(ConfigError, match="DATABASE_URL") as info:
        load_config(make_env(tmp_path, DATABASE_URL=raw))
    assert "secretpw" not in str(info.value)
    assert "postgresql://user:password@host:port/database" in str(info.value)


def test_shards(tmp_path: Path) -> None:
    assert load_config(make_env(tmp_path)).shards is None
    assert load_config(make_env(tmp_path, SHARD_COUNT="4")).shards == Shards(4, (0, 1, 2, 3))
    both = load_config(make_env(tmp_path, SHARD_COUNT="4", SHARD_IDS=" 3, 1 "))
    assert both.shards == Shards(4, (1, 3))


@pytest.mark.parametrize(
    ("count", "ids", "message"),
    [
        ("0", None, "SHARD_COUNT '0' is invalid"),
        ("two", None, "SHARD_COUNT 'two' is invalid"),
        ("-1", None, "SHARD_COUNT '-1' is invalid"),
        (None, "0", "SHARD_IDS '0' needs SHARD_COUNT"),
        ("2", "2", "shards are 0 to 1"),
        ("2", "0,0", "names a shard twice"),
        ("2", "0;1", "separated by commas"),
        ("2", "0,", "separated by commas"),
    ],
)
def test_bad_shard_settings_are_rejected(
    tmp_path: Path, count: str | None, ids: str | None, message: str
) -> None:
    env = make_env(tmp_path)
    if count is not None:
        env["SHARD_COUNT"] = count
    if ids is not None:
        env["SHARD_IDS"] = ids
    with pytest.raises(ConfigError, match=message):
        load_config(env)


# --- running bot.py ---------------------------------------------------------------------------


def run_bot(cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BOT_SCRIPT)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
        check=False,
    )


def assert_one_error_line(result: subprocess.CompletedProcess[str], status: int) -> str:
    assert result.returncode == status, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def test_running_without_token_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    result = run_bot(tmp_path, env={})
    line = assert_one_error_line(result, 2)
    assert "DISCORD_TOKEN" in line
    assert result.stdout == ""


def test_dotenv_in_working_directory_is_read(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=abc\nLOG_LEVEL=bogus\n")
    line = assert_one_error_line(run_bot(tmp_path, env={}), 2)
    assert "LOG_LEVEL 'bogus'" in line


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"SHARD_COUNT": "2", "SHARD_IDS": "5"}, "SHARD_IDS '5'"),
        ({"SHARD_IDS": "1"}, "needs SHARD_COUNT"),
        ({"DATABASE_URL": "postgresql://u:hunter2@:x/db"}, "DATABASE_URL"),
    ],
)
def test_bad_scale_settings_print_one_line_and_exit_2(
    tmp_path: Path, env: dict[str, str], needle: str
) -> None:
    line = assert_one_error_line(run_bot(tmp_path, env={"DISCORD_TOKEN": "abc", **env}), 2)
    assert needle in line
    assert "hunter2" not in line


def test_real_environment_wins_over_dotenv(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=abc\nLOG_LEVEL=bogus\n")
    line = assert_one_error_line(run_bot(tmp_path, env={"LOG_LEVEL": "loud"}), 2)
    assert "LOG_LEVEL 'loud'" in line


class _RejectingApi(BaseHTTPRequestHandler):
    """Answers every request the way Discord answers a bad token."""

    seen: list[tuple[str, str | None]] = []

    def do_GET(self) -> None:
        self.seen.append((self.path, self.headers.get("Authorization")))
        body = json.dumps({"message": "401: Unauthorized", "code": 0}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def rejecting_api() -> Iterator[tuple[str, list[tuple[str, str | None]]]]:
    seen: list[tuple[str, str | None]] = []
    handler = type("Handler", (_RejectingApi,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/api/v10", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_rejected_token_is_reported_via_configured_api_base(
    tmp_path: Path, rejecting_api: tuple[str, list[tuple[str, str | None]]]
) -> None:
    api_base, seen = rejecting_api
    env = {
        "DISCORD_TOKEN": "wrong-token",
        "DISCORD_API_BASE": api_base,
        "DATABASE_PATH": str(tmp_path / "data" / "bg.sqlite3"),
        "LOG_LEVEL": "ERROR",
    }
    result = run_bot(tmp_path, env)
    line = assert_one_error_line(result, 2)
    assert "DISCORD_TOKEN" in line
    assert ("/api/v10/users/@me", "Bot wrong-token") in seen
    # main() creates the database directory before connecting.
    assert (tmp_path / "data").is_dir()


# --- the slash-command error boundary -------------------------------------------------------


class FakeResponse:
    def __init__(self, done: bool, fail: bool = False) -> None:
        self.done = done
        self.fail = fail
        self.sent: list[tuple[str, bool]] = []

    def is_done(self) -> bool:
        return self.done

    async def send_message(self, content: str, *, ephemeral: bool = False) -> None:
        if self.fail:
            raise RuntimeError("interaction expired")
        self.sent.append((content, ephemeral))


class FakeFollowup:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.sent: list[tuple[str, bool]] = []

    async def send(self, content: str, *, ephemeral: bool = False) -> None:
        if self.fail:
            raise RuntimeError("webhook gone")
        self.sent.append((content, ephemeral))


def fake_interaction(*, done: bool, fail: bool = False) -> Any:
    return SimpleNamespace(
        type=discord.InteractionType.application_command,
        command=SimpleNamespace(qualified_name="game start"),
        user=SimpleNamespace(id=4242),
        channel_id=777,
        guild_id=999,
        response=FakeResponse(done, fail),
        followup=FakeFollowup(fail),
    )


@pytest.fixture
def tree(tmp_path: Path) -> ErrorBoundaryTree:
    client = BackgammonBot(load_config(make_env(tmp_path)))
    assert isinstance(client.tree, ErrorBoundaryTree)
    return client.tree


def invoke_error(original: BaseException) -> app_commands.CommandInvokeError:
    command: Any = SimpleNamespace(name="start")
    return app_commands.CommandInvokeError(command, original)


async def test_unexpected_error_is_logged_with_context_and_user_told(
    tree: ErrorBoundaryTree, caplog: pytest.LogCaptureFixture
) -> None:
    interaction = fake_interaction(done=False)
    original = ValueError("boom")
    with caplog.at_level(logging.ERROR, logger="backgammon"):
        await tree.on_error(interaction, invoke_error(original))
    [record] = [r for r in caplog.records if r.levelno == logging.ERROR]
    text = record.getMessage()
    assert "game start" in text and "4242" in text and "777" in text
    assert record.exc_info is not None and record.exc_info[1] is original
    [(content, ephemeral)] = interaction.response.sent
    assert content.startswith("Something went wrong")
    assert ephemeral
    assert interaction.followup.sent == []


async def test_error_after_response_uses_followup(tree: ErrorBoundaryTree) -> None:
    interaction = fake_interaction(done=True)
    await tree.on_error(interaction, invoke_error(KeyError("x")))
    assert interaction.response.sent == []
    [(content, ephemeral)] = interaction.followup.sent
    assert content.startswith("Something went wrong")
    assert ephemeral


@pytest.mark.parametrize("done", [False, True])
async def test_boundary_never_raises_when_reply_fails(
    tree: ErrorBoundaryTree, done: bool, caplog: pytest.LogCaptureFixture
) -> None:
    interaction = fake_interaction(done=done, fail=True)
    with caplog.at_level(logging.WARNING, logger="backgammon"):
        await tree.on_error(interaction, invoke_error(RuntimeError("db down")))
    assert any("could not report" in r.getMessage() for r in caplog.records)


async def test_check_failure_is_shown_to_user_not_logged_as_error(
    tree: ErrorBoundaryTree, caplog: pytest.LogCaptureFixture
) -> None:
    interaction = fake_interaction(done=False)
    with caplog.at_level(logging.INFO, logger="backgammon"):
        await tree.on_error(interaction, app_commands.CheckFailure("Not in this channel."))
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert interaction.response.sent == [("Not in this channel.", True)]


class NotYourTurn(Refusal):
    """A typed refusal as a use case in app/ raises it."""


@pytest.mark.parametrize("done", [False, True])
async def test_typed_refusal_is_its_message_privately_logged_at_info(
    tree: ErrorBoundaryTree, done: bool, caplog: pytest.LogCaptureFixture
) -> None:
    interaction = fake_interaction(done=done)
    with caplog.at_level(logging.DEBUG, logger="backgammon"):
        await tree.on_error(interaction, invoke_error(NotYourTurn("It is not your turn.")))
    sent = interaction.followup.sent if done else interaction.response.sent
    assert sent == [("It is not your turn.", True)]
    [record] = caplog.records
    assert record.levelno == logging.INFO and record.exc_info is None
    assert "game start" in record.getMessage() and "4242" in record.getMessage()


async def test_typed_refusal_from_a_button_is_its_message_privately(
    tree: ErrorBoundaryTree, caplog: pytest.LogCaptureFixture
) -> None:
    interaction = fake_interaction(done=False)
    with caplog.at_level(logging.DEBUG, logger="backgammon"):
        await tree.report_unexpected(interaction, Refusal("That game is over."), "button")
    assert interaction.response.sent == [("That game is over.", True)]
    [record] = caplog.records
    assert record.levelno == logging.INFO and record.exc_info is None
    assert "button" in record.getMessage()


def test_dice_seed_is_optional_and_must_be_a_whole_number(tmp_path: Path) -> None:
    assert load_config(make_env(tmp_path)).dice_seed is None
    assert load_config(make_env(tmp_path, DICE_SEED="42")).dice_seed == 42
    with pytest.raises(ConfigError, match="DICE_SEED"):
        load_config(make_env(tmp_path, DICE_SEED="abc"))
    for raw in ("4²", "①", "٤٢"):  # isdigit() but not ASCII: int() would fail or surprise
        with pytest.raises(ConfigError, match="DICE_SEED"):
            load_config(make_env(tmp_path, DICE_SEED=raw))


def test_sharding_on_a_sqlite_file_is_pointed_out(tmp_path: Path) -> None:
    """SHARD_COUNT with the SQLite file is allowed (processes on one machine share it) but
    not said silently: one warning line names the file and DATABASE_URL."""
    assert load_config(make_env(tmp_path)).warnings() == []
    partial = load_config(make_env(tmp_path, SHARD_COUNT="2", SHARD_IDS="0")).warnings()
    assert len(partial) == 1
    assert "SHARD_COUNT=2" in partial[0] and "1 other shard(s)" in partial[0]
    assert "DATABASE_URL" in partial[0] and "sqlite" in partial[0].lower()
    whole = load_config(make_env(tmp_path, SHARD_COUNT="2")).warnings()
    assert len(whole) == 1 and "all shards run in this one process" in whole[0]
    postgres = make_env(tmp_path, SHARD_COUNT="2", SHARD_IDS="0")
    postgres["DATABASE_URL"] = "postgresql://bot@localhost:5432/bot"
    assert load_config(postgres).warnings() == []
