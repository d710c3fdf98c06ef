"""The fake Discord drives the real discord.py client end to end over 127.0.0.1."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator

import aiohttp
import discord
import pytest
import yarl
from discord import app_commands
from discord.asset import Asset
from discord.ext import commands
from discord.gateway import DiscordWebSocket
from discord.http import Route
from PIL import Image, ImageDraw

from endpoints import apply_endpoint_overrides, endpoint_overrides, reset_endpoint_overrides
from tests.fake_discord import BotNotConnectedError, FakeDiscord, UnknownCommandError

TIMEOUT = 10.0
ROLL_ID = "fake-test:roll"
REDRAW_ID = "fake-test:redraw"
FRUITS = ["Apple", "Banana", "Cherry", "Mango", "Orange", "Pineapple", "Grape"]
PNG_SIZE = (32, 24)
REDRAWN_SIZE = (40, 30)


def make_png(size: tuple[int, int] = PNG_SIZE) -> bytes:
    image = Image.new("RGB", size, (20, 90, 40))
    ImageDraw.Draw(image).rectangle((4, 4, 20, 16), fill=(230, 220, 200))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


class RollView(discord.ui.View):
    """Persistent view: survives restarts because its button has a fixed custom_id."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Roll", custom_id=ROLL_ID, style=discord.ButtonStyle.primary)
    async def roll(
        self, interaction: discord.Interaction, button: discord.ui.Button[RollView]
    ) -> None:
        await interaction.response.edit_message(content=f"rolled by {interaction.user.name}")
        assert isinstance(interaction.channel, discord.TextChannel)
        await interaction.channel.send(f"{interaction.user.name} clicked the button")

    @discord.ui.button(label="Redraw", custom_id=REDRAW_ID, style=discord.ButtonStyle.secondary)
    async def redraw(
        self, interaction: discord.Interaction, button: discord.ui.Button[RollView]
    ) -> None:
        await interaction.response.defer()  # type 6: no "thinking" message for components
        big = discord.File(io.BytesIO(make_png(REDRAWN_SIZE)), filename="board.png")
        await interaction.edit_original_response(content="redrawn", attachments=[big])


class AskModal(discord.ui.Modal, title="A question"):
    answer: discord.ui.TextInput[AskModal] = discord.ui.TextInput(
        label="Your answer", custom_id="answer"
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"you said {self.answer.value}", ephemeral=True)


@app_commands.command(name="board", description="Show a board picture")
async def board(interaction: discord.Interaction) -> None:
    png = discord.File(io.BytesIO(make_png()), filename="board.png")
    await interaction.response.send_message("Here is the board", file=png, view=RollView())


@app_commands.command(name="pick", description="Pick a fruit")
@app_commands.describe(fruit="The fruit")
async def pick(interaction: discord.Interaction, fruit: str) -> None:
    await interaction.response.send_message(f"picked {fruit}")


@pick.autocomplete("fruit")
async def pick_fruit(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    matches = [f for f in FRUITS if current.lower() in f.lower()]
    return [app_commands.Choice(name=f, value=f.lower()) for f in matches]


@app_commands.command(name="slow", description="Think, then answer privately")
async def slow(interaction: discord.Interaction, times: int, who: discord.Member) -> None:
    await interaction.response.defer(ephemeral=True, thinking=True)
    await asyncio.sleep(0.05)  # the "work" that justified deferring
    await interaction.followup.send(f"{who.display_name} x{times}", ephemeral=True)


@app_commands.command(name="ask", description="Ask something in a modal")
async def ask(interaction: discord.Interaction) -> None:
    await interaction.response.send_modal(AskModal())


class FakeTestBot(commands.Bot):
    def __init__(self, guild_id: int) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.guild_id = guild_id
        self.tree.add_command(board)
        self.tree.add_command(pick)
        self.tree.add_command(ask)
        self.tree.add_command(slow, guild=discord.Object(guild_id))

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        # discord.py sleeps 5 s before re-IDENTIFYing (Discord's rate limit); the fake has none.
        return None

    async def setup_hook(self) -> None:
        self.add_view(RollView())
        await self.tree.sync()
        await self.tree.sync(guild=discord.Object(self.guild_id))


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as server:
        yield server


@pytest.fixture
async def bot(fake: FakeDiscord) -> AsyncIterator[FakeTestBot]:
    with endpoint_overrides(fake.api_base, fake.gateway_url, cdn_base=fake.cdn_base):
        client = FakeTestBot(fake.guild.id)
        runner: asyncio.Task[None] | None = None
        try:
            await asyncio.wait_for(client.login(fake.token), TIMEOUT)
            runner = asyncio.create_task(client.connect(reconnect=False))
            await fake.wait_ready(TIMEOUT, commands=["board", "pick", "slow", "ask"])
            yield client
        finally:
            await asyncio.wait_for(client.close(), TIMEOUT)
            if runner is not None:
                await asyncio.wait_for(runner, TIMEOUT)


def assert_no_api_errors(fake: FakeDiscord) -> None:
    assert fake.errors == []
    assert fake.unknown_routes == []


async def test_commands_are_synced_over_a_compressed_gateway(
    fake: FakeDiscord, bot: FakeTestBot
) -> None:
    global_cmds = {c["name"]: c for c in fake.commands()}
    guild_cmds = {c["name"]: c for c in fake.commands(fake.guild.id)}
    assert set(global_cmds) == {"board", "pick", "ask"}
    assert set(guild_cmds) == {"slow"}
    assert guild_cmds["slow"]["guild_id"] == str(fake.guild.id)
    slow_options = {o["name"]: o["type"] for o in guild_cmds["slow"]["options"]}
    assert slow_options == {"times": 4, "who": 6}
    assert global_cmds["pick"]["options"][0]["autocomplete"] is True
    assert all(c["id"].isdigit() for c in [*global_cmds.values(), *guild_cmds.values()])
    # discord.py asked for zlib-stream transport compression and understood our frames.
    assert fake.gateway_queries[-1] == {"v": "10", "encoding": "json", "compress": "zlib-stream"}
    assert fake.identifies[-1]["intents"] == bot.intents.value
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    assert bot.application_id == fake.application_id
    guild = bot.get_guild(fake.guild.id)
    assert guild is not None and guild.get_channel(fake.general.id) is not None
    assert_no_api_errors(fake)


async def test_slash_reply_has_png_and_its_button_works(
    fake: FakeDiscord, bot: FakeTestBot
) -> None:
    alice = fake.add_user("alice")
    resp = await fake.slash(alice, fake.general, "board")
    callback = await resp.wait_initial(TIMEOUT)
    assert callback.type == 4
    assert callback.files and callback.files[0].data.startswith(b"\x89PNG")
    msg = resp.original
    assert msg is not None and not msg.ephemeral
    assert msg.content == "Here is the board"
    assert msg.custom_ids() == [ROLL_ID, REDRAW_ID]
    attachment = msg.attachments[0]
    assert attachment.filename == "board.png" and attachment.content_type == "image/png"
    assert Image.open(io.BytesIO(attachment.data)).size == PNG_SIZE
    assert resp.latency is not None and resp.latency >= 0
    # The attachment URL the bot received is served by the fake, byte for byte.
    async with aiohttp.ClientSession() as http, http.get(attachment.url) as got:
        assert got.status == 200
        assert await got.read() == attachment.data

    mark = fake.mark()
    click = await fake.click(alice, msg, ROLL_ID)
    assert (await click.wait_initial(TIMEOUT)).type == 7
    assert click.original is msg and msg.content == "rolled by alice"
    assert msg.attachments[0] is attachment  # an edit without attachments keeps them
    sent = await fake.wait_for_channel_message(
        fake.general, lambda m: "clicked the button" in m.content, TIMEOUT, after=mark
    )
    assert sent.author is fake.bot_user and sent.content == "alice clicked the button"
    assert_no_api_errors(fake)


async def test_component_defer_then_edit_replaces_the_picture(
    fake: FakeDiscord, bot: FakeTestBot
) -> None:
    alice = fake.add_user("alice")
    resp = await fake.slash(alice, fake.general, "board")
    msg = await resp.wait_original(timeout=TIMEOUT)
    first_picture = msg.attachments[0]
    click = await fake.click(alice, msg, REDRAW_ID)
    assert (await click.wait_initial(TIMEOUT)).type == 6
    await click.wait_for(lambda h: h.content == "redrawn", TIMEOUT)
    assert click.original is msg and resp.content == "redrawn"
    (picture,) = msg.attachments
    assert picture.id != first_picture.id
    assert Image.open(io.BytesIO(picture.data)).size == REDRAWN_SIZE
    assert_no_api_errors(fake)


async def test_modal_round_trip(fake: FakeDiscord, bot: FakeTestBot) -> None:
    alice = fake.add_user("alice")
    resp = await fake.slash(alice, fake.general, "ask")
    assert (await resp.wait_initial(TIMEOUT)).type == 9
    assert resp.modal is not None and resp.modal["title"] == "A question"
    submitted = await fake.submit_modal(alice, resp, {"answer": "forty-two"})
    reply = await submitted.wait_original(timeout=TIMEOUT)
    assert reply.content == "you said forty-two" and reply.ephemeral
    assert_no_api_errors(fake)


async def test_autocomplete_choices_are_filtered(fake: FakeDiscord, bot: FakeTestBot) -> None:
    alice = fake.add_user("alice")
    resp = await fake.autocomplete(alice, fake.general, "pick", "fruit", fruit="an")
    choices = await resp.wait_autocomplete(TIMEOUT)
    expected = [f for f in FRUITS if "an" in f.lower()]
    assert [c["name"] for c in choices] == expected
    assert [c["value"] for c in choices] == [f.lower() for f in expected]
    assert resp.callback is not None and resp.callback.type == 8

    nothing = await fake.autocomplete(alice, fake.general, "pick", "fruit", fruit="zzz")
    assert await nothing.wait_autocomplete(TIMEOUT) == []

    chosen = await fake.slash(alice, fake.general, "pick", fruit=choices[0]["value"])
    final = await chosen.wait_original(timeout=TIMEOUT)
    assert final.content == f"picked {expected[0].lower()}"
    assert_no_api_errors(fake)


async def test_deferred_followup_is_ephemeral(fake: FakeDiscord, bot: FakeTestBot) -> None:
    alice = fake.add_user("alice")
    bob = fake.add_user("bob", global_name="Bobby")
    resp = await fake.slash(alice, fake.general, "slow", times=3, who=bob)
    callback = await resp.wait_initial(TIMEOUT)
    assert callback.type == 5 and callback.ephemeral
    (followup,) = await resp.wait_followups(1, TIMEOUT)
    # Member option resolved from `resolved`: display_name comes from global_name.
    assert followup.content == "Bobby x3"
    assert followup.ephemeral
    # The first followup after a deferral replaces the "thinking" message, as on Discord.
    assert resp.original is followup and not followup.loading
    assert resp.content == "Bobby x3"
    assert_no_api_errors(fake)


async def test_bot_reconnects_after_the_socket_drops(fake: FakeDiscord, bot: FakeTestBot) -> None:
    marker = fake.readiness_marker()
    await fake.disconnect_bot(4000)
    # discord.py tries RESUME, the fake invalidates the session, discord.py IDENTIFYs again.
    await fake.wait_ready(TIMEOUT, since=marker, require_sync=False)
    assert fake.ready_count == marker.ready_count + 1
    alice = fake.add_user("alice")
    resp = await fake.slash(alice, fake.general, "pick", fruit="kiwi")
    assert (await resp.wait_original(timeout=TIMEOUT)).content == "picked kiwi"
    assert_no_api_errors(fake)


async def test_fake_rejects_what_discord_rejects(fake: FakeDiscord) -> None:
    auth = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{fake.api_base}/users/@me") as got:
            assert got.status == 401
        async with http.get(f"{fake.api_base}/no/such/route", headers=auth) as got:
            assert got.status == 404
            assert "message" in await got.json()
        url = f"{fake.api_base}/applications/{fake.application_id}/commands"
        async with http.put(
            url, json=[{"name": "Bad Name", "description": "x"}], headers=auth
        ) as got:
            assert got.status == 400
            assert (await got.json())["code"] == 50035
        url = f"{fake.api_base}/channels/{fake.general.id}/messages"
        async with http.post(url, json={"content": ""}, headers=auth) as got:
            assert got.status == 400
            assert (await got.json())["code"] == 50006
        async with http.post(url, data=b"{not json", headers=auth) as got:
            assert got.status == 400
        url = f"{fake.api_base}/interactions/1/nope/callback"
        async with http.post(url, json={"type": 4, "data": {"content": "hi"}}) as got:
            assert got.status == 404
            assert (await got.json())["code"] == 10062
    assert [r.path for r in fake.unknown_routes] == ["/api/v10/no/such/route"]
    assert [e.status for e in fake.errors] == [401, 404, 400, 400, 400, 404]
    with pytest.raises(BotNotConnectedError):
        await fake.slash(fake.owner, fake.general, "board")


async def test_fake_checks_layouts_as_discord_does(fake: FakeDiscord) -> None:
    """Components V2 (flag 1 << 15): only layout components, where each may be, 40 at most,
    4000 characters of text displays, no content, pictures that are the message's own."""
    auth = {"Authorization": f"Bot {fake.token}"}
    url = f"{fake.api_base}/channels/{fake.general.id}/messages"
    v2 = 1 << 15
    button = {"type": 2, "style": 1, "label": "Roll", "custom_id": "roll"}

    def layout(*children: dict[str, object], colour: object = 0x336699) -> dict[str, object]:
        return {
            "flags": v2,
            "components": [{"type": 17, "accent_color": colour, "components": list(children)}],
        }

    def text(content: str) -> dict[str, object]:
        return {"type": 10, "content": content}

    refused = [
        {**layout(text("hi")), "content": "also content"},
        {"flags": v2, "components": [button]},  # a button outside an action row
        layout(*[text("x") for _ in range(40)]),  # 41 components with the container
        layout(text("x" * 2001), text("y" * 2000)),  # 4001 characters of text
        layout({"type": 12, "items": [{"media": {"url": "attachment://board.png"}}]}),
        layout(text("hi"), colour=0x1000000),
        layout({"type": 1, "components": [text("not a button")]}),
    ]
    async with aiohttp.ClientSession() as http:
        for body in refused:
            async with http.post(url, json=body, headers=auth) as got:
                assert got.status == 400, body
                assert (await got.json())["code"] == 50035
        good = layout(text("hi"), {"type": 14}, {"type": 1, "components": [button]})
        async with http.post(url, json=good, headers=auth) as got:
            assert got.status == 200
            sent = await got.json()
        assert sent["flags"] & v2 and sent["content"] == ""
        # Discord numbers the components it stores.
        container = sent["components"][0]
        assert [container["id"], *(c["id"] for c in container["components"])] == [1, 2, 3, 4]
        # Mentions in text displays notify, as in content, under allowed_mentions.
        alice = fake.add_user("alice")
        said = layout(text(f"<@{alice.id}>, your turn"))
        quiet = {**said, "allowed_mentions": {"parse": []}}
        async with http.post(url, json=quiet, headers=auth) as got:
            assert got.status == 200
        assert fake.pings == []
        loud = {**said, "allowed_mentions": {"parse": [], "users": [str(alice.id)]}}
        async with http.post(url, json=loud, headers=auth) as got:
            assert got.status == 200
        assert [user for _, user in fake.pings] == [alice]
        async with http.post(url, json={"content": "plain"}, headers=auth) as got:
            plain = await got.json()
        edit = f"{url}/{plain['id']}"
        # A text message becomes a layout only without its text.
        async with http.patch(edit, json=layout(text("board")), headers=auth) as got:
            assert got.status == 400
        async with http.patch(
            edit, json={**layout(text("board")), "content": ""}, headers=auth
        ) as got:
            assert got.status == 200
            assert (await got.json())["components"][0]["components"][0]["content"] == "board"
        # A layout cannot be emptied by an edit (a view of None), nor lose its flag.
        async with http.patch(edit, json={"components": []}, headers=auth) as got:
            assert got.status == 400
        async with http.patch(
            edit, json={"flags": 0, "content": "text again"}, headers=auth
        ) as got:
            assert got.status == 400


async def test_second_callback_and_unsynced_command_are_refused(
    fake: FakeDiscord, bot: FakeTestBot
) -> None:
    alice = fake.add_user("alice")
    with pytest.raises(UnknownCommandError):
        await fake.slash(alice, fake.general, "nope")
    resp = await fake.slash(alice, fake.general, "pick", fruit="fig")
    await resp.wait_initial(TIMEOUT)
    url = f"{fake.api_base}/interactions/{resp.id}/{resp.token}/callback"
    again = {"type": 4, "data": {"content": "again"}}
    async with aiohttp.ClientSession() as http, http.post(url, json=again) as got:
        assert got.status == 400
        assert (await got.json())["code"] == 40060
    assert resp.content == "picked fig"


def current_endpoints() -> tuple[str, yarl.URL, str]:
    return (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY, Asset.BASE)


def test_endpoint_overrides_are_restored() -> None:
    original = current_endpoints()
    with endpoint_overrides("http://127.0.0.1:1/api/v10/", "ws://127.0.0.1:1/gw"):
        api, gateway, _ = current_endpoints()
        assert api == "http://127.0.0.1:1/api/v10"
        assert Route("GET", "/users/@me").url == "http://127.0.0.1:1/api/v10/users/@me"
        assert gateway == yarl.URL("ws://127.0.0.1:1/gw")
        # A resume URL announced in READY cannot lead the client away from the override.
        ws = DiscordWebSocket.__new__(DiscordWebSocket)
        ws.gateway = yarl.URL("wss://gateway-us-east1-b.discord.gg")
        assert ws.gateway == gateway
    assert current_endpoints() == original
    assert "gateway" not in DiscordWebSocket.__dict__
    with pytest.raises(ValueError):
        apply_endpoint_overrides("ftp://example.com", None)
    assert current_endpoints() == original
    apply_endpoint_overrides(None, None, cdn_base="http://127.0.0.1:1/cdn")
    try:
        assert current_endpoints()[2] == "http://127.0.0.1:1/cdn"
    finally:
        reset_endpoint_overrides()
    assert current_endpoints() == original
