"""The game driver of bench/surface.py, importable from any checkout: it uses only the fake
Discord and the storage API of the tree on ``sys.path[0]`` (so an older commit can be measured
with the same driver)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any


def _counted(path: str) -> bool:
    """A REST call that counts against the global rate limit."""
    if not path.startswith("/api/"):
        return False
    return "/interactions/" not in path and "/webhooks/" not in path


async def _play(variant: str, computer: bool, seed: int) -> dict[str, Any]:
    """One game through the fake Discord with the bot of the tree on ``sys.path[0]``."""
    from engine.game import DOUBLE, MOVE, ROLL, GameState
    from engine.position import X
    from tests.e2e.harness import bot_in_process
    from tests.fake_discord import FakeDiscord

    async with FakeDiscord() as fake:
        with tempfile.TemporaryDirectory() as tmp:
            async with bot_in_process(fake, Path(tmp) / "bot.sqlite3") as bot:
                db = bot.services.db
                alice, bob = fake.add_user("alice"), fake.add_user("bob")
                users = {alice.id: alice, bob.id: bob}
                home = fake.general
                start = len(fake.requests)
                pings_before = len(fake.pings)
                actions = 0
                opponent = fake.bot_user if computer else bob
                handle = await fake.slash(
                    alice, home, "challenge", opponent=opponent, variant=variant
                )
                await handle.wait_initial(30)
                actions += 1
                if not computer:
                    msg = await handle.wait_original()
                    accept = next(c for c in msg.custom_ids() if c.startswith("bg:accept:"))
                    await (await fake.click(bob, msg, accept)).wait_initial(30)
                    actions += 1

                async def current() -> Any:
                    for game in await db.list_active_games(None):
                        return game
                    return None

                game = None
                for _ in range(200):
                    game = await current()
                    if game is not None and game.board_message_id is not None:
                        break
                    await asyncio.sleep(0.02)
                assert game is not None, "the game did not start"
                game_id = game.id
                for _ in range(3000):
                    game = await db.get_game(game_id)
                    assert game is not None
                    if game.status != "active":
                        break
                    state = GameState.from_json(game.state_json)
                    seat_user = game.player_x if state.mover == 0 else game.player_o
                    if seat_user not in users or state.resign_offer is not None:
                        await asyncio.sleep(0.02)  # the computer's turn
                        continue
                    user = users[seat_user]
                    channel = fake.channel(game.channel_id)
                    assert channel is not None
                    if state.phase == ROLL:
                        handle = await fake.slash(user, channel, "roll")
                    elif state.phase == DOUBLE:
                        handle = await fake.slash(user, channel, "take")
                    else:
                        assert state.phase == MOVE
                        plays = state.legal_plays()
                        best = min(plays, key=lambda p: (p.after.pips(X), p.text))
                        handle = await fake.slash(user, channel, "move", play=best.text or "pass")
                    await handle.wait_initial(30)
                    actions += 1
                    for _ in range(1500):  # until the action is committed and shown
                        fresh = await db.get_game(game_id)
                        moved = fresh is not None and (
                            fresh.version != game.version or fresh.status != "active"
                        )
                        if moved and fresh is not None and fresh.board_owed_version is None:
                            break
                        await asyncio.sleep(0.01)
                await asyncio.sleep(0.5)  # the last board and the result card
                finished = await db.get_game(game_id)
                assert finished is not None and finished.status != "active"
                moves = await db.game_moves(game_id)
                turns = sum(1 for m in moves if m.kind == "play" and m.actor_id in users)
                channels = {home.id, finished.channel_id}
                public = [
                    m
                    for cid in channels
                    for m in fake.messages_in(fake.channel(cid))  # type: ignore[arg-type]
                    if m.author.bot and not m.ephemeral
                ]
                return {
                    "variant": variant,
                    "computer": computer,
                    "human_turns": turns,
                    "human_actions": actions,
                    "public_messages": len(public),
                    "images": sum(1 for m in public if any(a.is_png for a in m.attachments)),
                    "pings": len(fake.pings) - pings_before,
                    "rest_counted": sum(1 for r in list(fake.requests)[start:] if _counted(r.path)),
                }


def _measure(variants: list[str], kinds: list[bool]) -> list[dict[str, Any]]:
    out = []
    for variant in variants:
        for computer in kinds:
            out.append(asyncio.run(_play(variant, computer, 1)))
    return out
