"""End to end: a whole game played by clicking, never typing: Roll, then Play opens the move
builder (a private message of the mover) whose menus offer the legal next steps, with Undo
and Confirm. Also: the builder is the mover's only, a stale builder is refused, and a step
that is not offered cannot be forced in."""

from __future__ import annotations

import random
from collections.abc import Awaitable

import pytest

from engine import VARIANTS, builder
from engine.game import DOUBLE, MOVE, ROLL, GameState
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeMessage, FakeUser

from .harness import TIMEOUT, Table, eventually, mover_user, reply_of


def _menus(msg: FakeMessage) -> list[dict[str, object]]:
    return [c for c in _components(msg.components) if c.get("type") == 3]


def _components(items: list[dict[str, object]]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for item in items:
        out.append(item)
        children = item.get("components")
        if isinstance(children, list):
            out.extend(_components(children))
    return out


def _button(msg: FakeMessage, action: str) -> dict[str, object]:
    return next(
        c for c in _components(msg.components) if str(c.get("custom_id", "")).startswith(action)
    )


async def _changed(msg: FakeMessage, interaction: Awaitable[object]) -> None:
    """Send an interaction and wait until it has edited the builder ``msg``."""
    before = msg.edit_count
    await interaction
    await eventually(lambda: msg.edit_count > before, "the builder to change")


async def _open_builder(table: Table, fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    board = table.last_board
    assert board is not None
    play = next(c for c in board.custom_ids() if c.startswith("bg:play:"))
    handle = await fake.click(user, board, play)
    msg = await handle.wait_original()

    def ready() -> bool:
        return not msg.loading

    await eventually(ready, "the move builder")
    assert msg.ephemeral and msg.attachments and msg.attachments[0].data[:4] == b"\x89PNG"
    return msg


async def _build_and_confirm(
    table: Table, fake: FakeDiscord, user: FakeUser, rng: random.Random, undo: bool
) -> None:
    """Click a random legal play together (one Undo on the way, when asked), then Confirm."""
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    msg = await _open_builder(table, fake, user)
    undone = not undo
    for _ in range(12):
        menus = _menus(msg)
        if not menus:
            break
        menu = rng.choice(menus)
        options = menu["options"]
        assert isinstance(options, list) and options
        value = rng.choice(options)["value"]
        await _changed(msg, fake.select(user, msg, str(menu["custom_id"]), [value]))
        if not undone and not _button(msg, "bg:mb:undo").get("disabled"):
            undo = str(_button(msg, "bg:mb:undo")["custom_id"])
            await _changed(msg, fake.click(user, msg, undo))
            assert "nothing yet" in msg.text() or "/" in msg.text()
            undone = True
    confirm = _button(msg, "bg:mb:confirm")
    assert not confirm.get("disabled"), msg.text()
    made = builder.complete(state, builder.decode_steps(str(confirm["custom_id"]).split(":")[5]))
    assert made is not None  # what the builder submits is a legal play of this position
    board = table.last_board
    assert board is not None
    played_before = len(await table.db.game_moves(game.id))
    handle = await fake.click(user, msg, str(confirm["custom_id"]))
    await handle.wait_initial(TIMEOUT)
    await table.settle(game.id, board.id, board.edit_count, game.version)
    await eventually(lambda: "You played" in msg.text(), "the builder to close")
    fresh = await table.db.get_game(game.id)
    assert fresh is not None and fresh.version > game.version
    moves = await table.db.game_moves(game.id)
    assert any(m.actor_id == user.id for m in moves[played_before:])


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_a_whole_game_by_clicks(table: Table, fake: FakeDiscord, variant: str) -> None:
    await table.challenge(variant)
    rng = random.Random(variant)
    for turn in range(2000):
        game = await table.game()
        if game is None:
            break
        table._board(game)
        state = GameState.from_json(game.state_json)
        user = mover_user(game, state, table.users)
        if state.phase == ROLL:
            await table.press(user, "roll")
        elif state.phase == DOUBLE:
            await table.press(user, "take")
        else:
            assert state.phase == MOVE
            await _build_and_confirm(table, fake, user, rng, undo=turn % 3 == 0)
    else:
        raise AssertionError("the game did not end")
    assert fake.errors == [], fake.errors[:3]


async def test_only_the_mover_builds_and_a_stale_builder_is_refused(
    table: Table, fake: FakeDiscord
) -> None:
    await table.challenge("classic")
    for _ in range(6):
        game = await table.game()
        assert game is not None
        state = GameState.from_json(game.state_json)
        if state.phase == MOVE:
            break
        await table.step()
    mover = mover_user(game, state, table.users)
    other = table.bob if mover is table.alice else table.alice
    board = table.last_board
    assert board is not None
    play = next(c for c in board.custom_ids() if c.startswith("bg:play:"))
    refused = await reply_of(await fake.click(other, board, play))
    assert refused.ephemeral and "not your turn" in refused.content.lower()
    msg = await _open_builder(table, fake, mover)
    # A forged step that the menus do not offer is refused, and nothing changes.
    menu = _menus(msg)[0]
    forged = await reply_of(await fake.select(mover, msg, str(menu["custom_id"]), ["zz"]))
    assert forged.ephemeral and "older position" in forged.content
    # The move is made another way (typed); the builder opened before is now stale.
    await table.step(use_buttons=False)
    undo = await reply_of(
        await fake.click(mover, msg, str(_button(msg, "bg:mb:confirm")["custom_id"]), forged=True)
    )
    assert undo.ephemeral and ("older board" in undo.content or "not your turn" in undo.content)
