"""What Discord's client normally validates, sent anyway (a modified client, an API change):
each gets a specific ephemeral reply, no traceback, and nothing changes."""

from __future__ import annotations

import logging

import pytest

from discord_ui.client import BackgammonBot
from discord_ui.custom_ids import MAX_ID
from engine.game import GameState
from tests.fake_discord import FakeDiscord, FakeUser

from .harness import TIMEOUT, Table, mover_user

GENERIC = "Something went wrong"
MANAGE_GUILD = 1 << 5


def _clean(caplog: pytest.LogCaptureFixture) -> None:
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not bad, [r.getMessage() for r in bad]


async def _refused(handle_coro: object) -> str:
    handle = await handle_coro  # type: ignore[misc]
    callback = await handle.wait_initial(TIMEOUT)
    content = callback.content or ""
    assert callback.ephemeral, content
    assert GENERIC not in content
    return content


@pytest.mark.parametrize("length", [0, -1, 26, 2**63, 2**53 - 1])
async def test_match_length_out_of_range(
    table: Table, fake: FakeDiscord, length: int, caplog: pytest.LogCaptureFixture
) -> None:
    text = await _refused(
        fake.slash(
            table.alice,
            table.channel,
            "challenge",
            opponent=table.bob,
            variant="pin",
            length=length,
        )
    )
    assert "match length must be from 1 to 25" in text
    assert await table.db.get_open_challenge(table.channel.id) is None
    _clean(caplog)


async def test_unknown_variant(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    text = await _refused(
        fake.slash(table.alice, table.channel, "challenge", opponent=table.bob, variant="chess")
    )
    assert "no variant `chess`" in text
    assert await table.db.get_open_challenge(table.channel.id) is None
    assert "no variant" in await _refused(
        fake.slash(table.alice, table.channel, "rules", variant="")
    )
    assert "no variant" in await _refused(
        fake.slash(table.alice, table.channel, "leaderboard", variant="classic; DROP TABLE")
    )
    _clean(caplog)


async def test_settings_out_of_range(
    table: Table, fake: FakeDiscord, bot: BackgammonBot, caplog: pytest.LogCaptureFixture
) -> None:
    admin = fake.add_user("admin", roles=[fake.add_role("admins", permissions=MANAGE_GUILD)])
    before = await table.db.get_guild_settings(fake.guild.id)
    for options in (
        {"challenge_minutes": 10081},
        {"challenge_minutes": 0},
        {"reminder_hours": -3},
        {"claim_hours": 2**63},
    ):
        text = await _refused(fake.slash(admin, table.channel, "settings", options))
        assert "must be from 1 to" in text
    assert await table.db.get_guild_settings(fake.guild.id) == before
    _clean(caplog)


@pytest.mark.parametrize("game", [-1, 0, 2**63, 2**64])
async def test_record_with_impossible_game_numbers(
    table: Table, fake: FakeDiscord, game: int, caplog: pytest.LogCaptureFixture
) -> None:
    text = await _refused(fake.slash(table.alice, table.channel, "record", game=game))
    assert "game number must be from 1 to" in text
    _clean(caplog)


async def test_guild_only_commands_from_a_dm(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    for command, options in (
        ("challenge", {"opponent": table.bob, "variant": "pin"}),
        ("leaderboard", {}),
        ("settings", {}),
        ("accept", {}),
        ("games", {}),
    ):
        text = await _refused(fake.slash_in_dm(table.alice, command, options))
        assert "needs this bot in a server, so it does not work in direct messages" in text, (
            command,
            text,
        )
    # The game commands work in a DM (against the computer there): no game yet.
    for command, options in (("board", {}), ("move", {"play": "24/18"})):
        text = await _refused(fake.slash_in_dm(table.alice, command, options))
        assert "There is no game in this channel" in text, (command, text)
    # Commands meant for anywhere still work in a DM.
    helped = await fake.slash_in_dm(table.alice, "help")
    assert (await helped.wait_initial(TIMEOUT)).data.get("embeds")
    _clean(caplog)


@pytest.mark.parametrize(
    ("command", "focused", "options"),
    [
        ("move", "play", {"play": "24/"}),
        ("challenge", "options", {"variant": "dutch", "options": "m"}),
        ("record", "game", {"game": "1"}),
    ],
)
async def test_autocomplete_from_a_dm_is_answered_with_choices(
    table: Table,
    fake: FakeDiscord,
    caplog: pytest.LogCaptureFixture,
    command: str,
    focused: str,
    options: dict[str, object],
) -> None:
    """An option box typed in a DM: always an autocomplete answer, never a message, which
    Discord refuses for an autocomplete (the box would fail). No game and no practice game
    there yet: no plays and no game numbers; the options of a variant, as in a server."""
    handle = await fake.autocomplete_in_dm(table.alice, command, focused, options)
    choices = await handle.wait_autocomplete()
    if command == "challenge":
        assert [c["value"] for c in choices] == ["mustEnterAll"]
    else:
        assert choices == []
    assert fake.errors == []
    _clean(caplog)


async def test_opponent_who_left_the_server(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    gone = FakeUser(id=fake.snowflakes.next(), username="gone")  # not a member: no member data
    text = await _refused(
        fake.slash(table.alice, table.channel, "challenge", opponent=gone, variant="pin")
    )
    assert "not a member of this server" in text
    assert await table.db.get_open_challenge(table.channel.id) is None
    _clean(caplog)


async def test_command_the_bot_no_longer_has(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    fake.strict_commands = False
    text = await _refused(fake.slash(table.alice, table.channel, "teleport"))
    assert "does not have that command" in text
    _clean(caplog)


@pytest.mark.parametrize(
    "custom_id", ["bg:bogus:1", "bg:roll:x:1", "bg:roll:1", "leaderboard:next", "x" * 100]
)
async def test_button_matching_no_template(
    table: Table, fake: FakeDiscord, custom_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    await table.challenge("pin")
    assert table.last_board is not None
    game = await table.game()
    text = await _refused(fake.click(table.alice, table.last_board, custom_id, forged=True))
    assert "does not work any more" in text
    assert await table.game() == game
    _clean(caplog)


@pytest.mark.parametrize("kind", ["button", "menu"])
async def test_a_component_whose_id_routes_but_names_nothing(
    table: Table, fake: FakeDiscord, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A component the message really carries, whose id matches a button's template but does
    not decode (a number past 64 bits, half a step): the item made for it answers that it no
    longer works, and nothing changes."""
    await table.challenge("pin")
    board = table.last_board
    assert board is not None
    game = await table.game()
    assert game is not None
    if kind == "button":
        custom_id = f"bg:roll:{MAX_ID + 1}:{game.version}"
        component: dict[str, object] = {"type": 2, "style": 1, "label": "Roll"}
    else:
        custom_id = f"bg:ms:0:{game.id}:{game.version}:a"
        component = {"type": 3, "options": [{"label": "-", "value": "-"}]}
    board.components.append({"type": 1, "components": [{**component, "custom_id": custom_id}]})
    if kind == "button":
        text = await _refused(fake.click(table.alice, board, custom_id))
    else:
        text = await _refused(fake.select(table.alice, board, custom_id, ["-"]))
    assert "does not work any more" in text
    assert await table.game() == game
    _clean(caplog)


async def test_the_same_limits_are_declared_to_discord(table: Table, fake: FakeDiscord) -> None:
    commands = {c["name"]: c for c in fake.commands(fake.guild.id) or fake.commands()}
    options = {o["name"]: o for o in commands["challenge"]["options"]}
    assert (options["length"]["min_value"], options["length"]["max_value"]) == (1, 25)
    assert {c["value"] for c in options["variant"]["choices"]} >= {"classic", "pin", "dutch"}
    settings = {o["name"]: o for o in commands["settings"]["options"]}
    assert settings["challenge_minutes"]["max_value"] == 7 * 24 * 60
    # Server-only commands are declared so; the game against the computer works anywhere.
    assert commands["settings"].get("dm_permission") is False
    assert commands["challenge"]["contexts"] == [0, 1, 2]
    assert commands["challenge"]["integration_types"] == [0, 1]


async def test_a_click_on_a_button_just_removed_is_answered(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    """discord.py drops a click on a dynamic button no longer on its message (the edit that
    answered the first click removed it): the bot answers it all the same."""
    await table.challenge("classic")
    for _ in range(10):  # until someone is to roll, with the Roll button on the board
        board = table.last_board
        assert board is not None
        roll = next((c for c in board.custom_ids() if c.startswith("bg:roll:")), None)
        if roll is not None:
            break
        await table.step()
    else:
        raise AssertionError("no Roll button came up")
    game = await table.game()
    assert game is not None
    state_before = game.state_json
    roller = mover_user(game, GameState.from_json(state_before), table.users)
    await table.press(roller, "roll")
    assert roll not in board.custom_ids()  # the board was redrawn without it
    after = await table.game()
    assert after is None or after.state_json != state_before  # the first click rolled
    text = await _refused(fake.click(roller, board, roll, forged=True))
    assert "does not work any more" in text
    # The second click changed nothing (the board's bookkeeping may still settle meanwhile).
    now = await table.game()
    assert (now and (now.version, now.state_json)) == (after and (after.version, after.state_json))
    _clean(caplog)
