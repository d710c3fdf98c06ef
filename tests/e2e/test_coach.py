"""End to end: /replay (and the other post-game tools) through the fake Discord."""

from __future__ import annotations

import io

from PIL import Image

from bot import BackgammonBot
from engine.game import GameState
from render.replay import replay_states
from tests.fake_discord import FakeDiscord

from .harness import TIMEOUT, Table


async def test_replay_posts_an_animated_gif_with_a_frame_per_play(
    table: Table, fake: FakeDiscord, bot: BackgammonBot
) -> None:
    await table.challenge("pin")
    game = await table.game()
    assert game is not None
    await table.play_out()
    finished = await bot.db.get_game(game.id)
    assert finished is not None
    state = GameState.from_json(finished.state_json)

    carol = fake.add_user("carol")
    handle = await fake.slash(carol, table.channel, "replay", game=game.id)
    first = await handle.wait_initial(TIMEOUT)
    assert first.type == 5  # deferred: the channel shows "thinking"
    (posted,) = await handle.wait_followups(1, timeout=120)
    assert not posted.ephemeral
    assert [a.filename for a in posted.attachments] == [f"replay-{game.id}.gif"]
    data = posted.attachments[0].data
    assert len(data) <= 8 * 1024 * 1024
    gif = Image.open(io.BytesIO(data))
    assert gif.format == "GIF" and gif.is_animated
    assert gif.n_frames == len(replay_states(state))
    assert gif.size[0] >= 600  # full-size boards stay readable

    missing = await (await fake.slash(carol, table.channel, "replay", game=987654)).wait_initial(
        TIMEOUT
    )
    assert missing.ephemeral and "no game #987654" in (missing.content or "")
    assert fake.errors == []
