"""End to end: gnubg IDs on /board and in /record, and the .mat export of a classic match."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from discord_ui.client import BackgammonBot
from engine.game import GameState
from engine.history import PLAY, replay
from interop.gnubg import gnubg_id
from tests.fake_discord import FakeDiscord

from .harness import TIMEOUT, Table, final_callback, reply_of

GNUBG_ID = re.compile(r"[A-Za-z0-9+/]{14}:[A-Za-z0-9+/]{12}")


async def test_board_and_record_show_gnubg_ids(table: Table, fake: FakeDiscord) -> None:
    await table.challenge("classic", length=3)
    for _ in range(6):
        await table.step()
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    carol = fake.add_user("carol")
    shown = await reply_of(await fake.slash(carol, table.channel, "board"))
    assert f"gnubg ID: `{gnubg_id(state)}`" in shown.content

    record = await final_callback(await fake.slash(carol, table.channel, "record", game=game.id))
    body = record.files[0].data.decode("utf-8")
    assert f"gnubg ID: {gnubg_id(state)}" in body
    # Each play line is preceded by the ID of the position it was played in.
    lines = body.splitlines()
    plays = [d for d in replay(state) if d.kind == PLAY]
    for d in plays:
        at = lines.index(d.line)
        assert lines[at - 1] == f"  gnubg ID {gnubg_id(d.before)}"
    assert all(GNUBG_ID.search(line) for line in lines if "gnubg ID" in line)


async def test_record_as_mat_is_read_back_by_gnubg(
    table: Table, fake: FakeDiscord, bot: BackgammonBot, tmp_path: Path
) -> None:
    await table.challenge("classic")
    game = await table.game()
    assert game is not None
    await table.play_out()
    finished = await bot.services.db.get_game(game.id)
    assert finished is not None and finished.status == "finished"
    state = GameState.from_json(finished.state_json)

    handle = await fake.slash(table.alice, table.channel, "record", game=game.id, format="mat")
    record = await final_callback(handle)
    assert [f.filename for f in record.files] == [f"game-{game.id}.mat"]
    text = record.files[0].data.decode("utf-8")
    assert " 0 point match" in text and " Game 1" in text

    gnubg: Any = pytest.importorskip("gnubg")
    path = tmp_path / "game.mat"
    path.write_bytes(record.files[0].data)
    gnubg.command(f"import mat {path}")
    match = gnubg.match(analysis=0, boards=1, statistics=0, verbose=1)
    moves = [r for r in match["games"][0]["game"] if r["action"] == "move"]
    plays = [d for d in replay(state) if d.kind == PLAY]
    assert len(moves) == len(plays)
    for record_, d in zip(moves, plays, strict=True):
        assert d.before.dice is not None and d.play is not None
        assert tuple(record_["dice"]) == (d.before.dice.high, d.before.dice.low)
        assert record_["board"] == gnubg_id(d.before).split(":")[0]


async def test_mat_export_refused_for_other_variants(table: Table, fake: FakeDiscord) -> None:
    await table.challenge("pin")
    game = await table.game()
    assert game is not None
    refused = await (
        await fake.slash(table.alice, table.channel, "record", game=game.id, format="mat")
    ).wait_initial(TIMEOUT)
    assert refused.ephemeral and "Only backgammon (classic)" in (refused.content or "")
    text = await final_callback(
        await fake.slash(table.alice, table.channel, "record", game=game.id, format="text")
    )
    assert [f.filename for f in text.files] == [f"game-{game.id}.txt"]
    assert "gnubg" not in text.files[0].data.decode("utf-8")
