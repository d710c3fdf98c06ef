"""How fast each slash command and button answers: the real bot process driven through the
fake Discord, as players would use it.

Runs ``python bot.py`` against the fake Discord (REST + gateway on 127.0.0.1) and plays whole
games of backgammon (classic, hints allowed) between two players, using every handler along
the way: /challenge, the Accept button, the Roll button, /move, /board, /resign (an offer,
rejected so the game goes on), /hint, /games; after each game /review, /replay, /record,
/stats, /leaderboard, /settings and /preferences.

For each handler it prints two times, p50/p95/worst in milliseconds:

* ``first``: from sending the interaction until the bot's first answer (a message, or the
  "thinking"/deferred acknowledgement). Discord drops an interaction not answered within 3 s,
  so every handler that can take more than about 1 s must acknowledge first: this column is
  what that rule is about.
* ``done``: until the player sees the result (the deferred answer filled in, the next board
  posted or the waiting board redrawn).

Timings depend on the machine and its load: the load average is printed before and after.

Usage: python -m bench.handlers [--games 2] [--repeat 10] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from engine.game import DOUBLE, MOVE, ROLL, GameState
from storage import Database
from tests.e2e.harness import BotProcess, Table, best_play, mover_user, reply_of
from tests.fake_discord import FakeDiscord
from tests.fake_discord.interactions import InteractionHandle, OptionValue
from tests.fake_discord.models import FakeUser

MANAGE_GUILD = 1 << 5
TIMEOUT = 300.0
HANDLERS = (
    "/challenge",
    "accept button",
    "roll button",
    "/move",
    "/board",
    "/resign",
    "/hint",
    "/review",
    "/replay",
    "/stats",
    "/leaderboard",
    "/games",
    "/record",
    "/settings",
    "/preferences",
)
#: A handler whose first answer took longer than this must acknowledge (defer) first.
DEFER_LIMIT_MS = 1000.0


@dataclass
class Samples:
    first: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    done: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def add(self, name: str, started: float, handle: InteractionHandle, ended: float) -> None:
        assert handle.responded_at is not None, f"{name}: no answer"
        self.first[name].append((handle.responded_at - started) * 1000)
        self.done[name].append((ended - started) * 1000)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def command(
    samples: Samples,
    name: str,
    fake: FakeDiscord,
    user: FakeUser,
    table: Table,
    cmd: str,
    **opts: OptionValue,
) -> str:
    """A command answered to the person who used it; returns the answer's text."""
    started = time.perf_counter()
    handle = await fake.slash(user, table.channel, cmd, **opts)
    reply = await reply_of(handle, TIMEOUT)
    samples.add(name, started, handle, time.perf_counter())
    return reply.content


async def play_game(
    fake: FakeDiscord,
    table: Table,
    samples: Samples,
    rng: random.Random,
    *,
    resign_at: int,
    finish_by_resigning: bool,
    hints: bool = True,
) -> int:
    """One game from the challenge to the end; returns its id. At decision ``resign_at`` the
    player to act offers to resign a single game, and the opponent rejects the offer (or
    accepts it, ``finish_by_resigning``)."""
    alice, bob, channel = table.alice, table.bob, table.channel
    started = time.perf_counter()
    handle = await fake.slash(
        alice, channel, "challenge", opponent=bob, variant="classic", hints=hints
    )
    message = await handle.wait_original(timeout=TIMEOUT)
    samples.add("/challenge", started, handle, time.perf_counter())
    accept = next(cid for cid in message.custom_ids() if cid.startswith("bg:accept:"))
    started = time.perf_counter()
    click = await fake.click(bob, message, accept)
    game = await table.settle(None, None, 0)
    samples.add("accept button", started, click, time.perf_counter())
    table._follow(game)  # played in its thread from now on
    table._board(game)
    game_id = game.id
    decisions = 0
    resigned = False
    while True:
        current = await table.game()
        if current is None:
            return game_id
        state = GameState.from_json(current.state_json)
        user = mover_user(current, state, table.users)
        other = bob if user is alice else alice
        if decisions >= resign_at and not resigned:
            resigned = True
            started = time.perf_counter()
            handle = await table.act(user, "resign", level=1)
            samples.add("/resign", started, handle, time.perf_counter())
            await table.press(other, "rsyes" if finish_by_resigning else "rsno")
            decisions += 1
            continue
        if state.phase == ROLL:
            started = time.perf_counter()
            handle = await table.press(user, "roll")
            samples.add("roll button", started, handle, time.perf_counter())
        elif state.phase == DOUBLE:
            await table.act(user, "take")
        else:
            assert state.phase == MOVE
            await command(samples, "/hint", fake, user, table, "hint")
            await command(samples, "/board", fake, rng.choice((alice, bob)), table, "board")
            if decisions % 5 == 0:
                await command(samples, "/games", fake, other, table, "games")
            auto = await fake.autocomplete(user, table.channel, "move", "play", play="")
            offered = [c["value"] for c in await auto.wait_autocomplete(TIMEOUT)]
            started = time.perf_counter()
            handle = await table.act(user, "move", play=best_play(state, offered))
            samples.add("/move", started, handle, time.perf_counter())
        decisions += 1


async def after_game(
    fake: FakeDiscord, table: Table, samples: Samples, admin: FakeUser, game_id: int, repeat: int
) -> None:
    alice = table.alice
    # The bench measures real answers only: a refusal would be a fast, meaningless figure.
    review = await command(samples, "/review", fake, alice, table, "review", game=game_id)
    assert f"Review of game #{game_id}" in review, review
    replay = await command(samples, "/replay", fake, alice, table, "replay", game=game_id)
    assert f"Replay of game #{game_id}" in replay, replay
    for i in range(repeat):
        await command(samples, "/record", fake, alice, table, "record", game=game_id)
        await command(samples, "/stats", fake, alice, table, "stats")
        await command(samples, "/leaderboard", fake, alice, table, "leaderboard")
        if i % 2:
            await command(samples, "/settings", fake, admin, table, "settings")
            await command(samples, "/preferences", fake, alice, table, "preferences")
        else:
            await command(samples, "/settings", fake, admin, table, "settings", reminder_hours=20)
            await command(
                samples, "/preferences", fake, alice, table, "preferences", own_side=i % 4 == 0
            )


def report(samples: Samples) -> list[str]:
    """Prints the table; returns the handlers whose first answer exceeded the limit."""
    print(
        f"{'handler':<16} {'n':>4} {'first p50':>10} {'p95':>8} {'worst':>8} "
        f"{'done p50':>10} {'p95':>8} {'worst':>8}"
    )
    slow = []
    for name in HANDLERS:
        first, done = samples.first.get(name, []), samples.done.get(name, [])
        if not first:
            print(f"{name:<16} {0:>4} (not measured)")
            continue
        print(
            f"{name:<16} {len(first):>4} {statistics.median(first):>10.0f} "
            f"{quantile(first, 0.95):>8.0f} {max(first):>8.0f} {statistics.median(done):>10.0f} "
            f"{quantile(done, 0.95):>8.0f} {max(done):>8.0f}"
        )
        if max(first) > DEFER_LIMIT_MS:
            slow.append(name)
    ranked = sorted(samples.done, key=lambda n: -quantile(samples.done[n], 0.95))
    print("slowest to finish (done p95): " + ", ".join(ranked[:5]))
    return slow


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2, help="whole games played")
    parser.add_argument("--repeat", type=int, default=10, help="samples of the quick commands")
    parser.add_argument("--smoke", action="store_true", help="one short game, one sample each")
    args = parser.parse_args()
    smoke = args.smoke
    if smoke:
        args.games, args.repeat = 1, 2
    rng = random.Random(7)
    samples = Samples()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite3"
        async with FakeDiscord() as fake:
            process = BotProcess(fake, path, seed=11)
            await process.start()
            db = await Database.open(path)
            try:
                admin = fake.add_user(
                    "admin", roles=[fake.add_role("admins", permissions=MANAGE_GUILD)]
                )
                table = Table(fake, db, fake.add_channel("bench"), fake.add_user("alice"), admin)
                for _ in range(args.games):
                    # A rated game resigned at once (the ratings /stats charts), then a game
                    # with hints played out (or, in a smoke run, resigned after a few turns).
                    await play_game(
                        fake,
                        table,
                        samples,
                        rng,
                        resign_at=0,
                        finish_by_resigning=True,
                        hints=False,
                    )
                    game_id = await play_game(
                        fake,
                        table,
                        samples,
                        rng,
                        resign_at=4 if smoke else 10,
                        finish_by_resigning=smoke,
                    )
                    await after_game(fake, table, samples, admin, game_id, args.repeat)
            finally:
                process.stop()
                await db.close()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    slow = report(samples)
    if slow:
        print(f"first answer over {DEFER_LIMIT_MS:.0f} ms: " + ", ".join(slow))
    else:
        print(f"every handler answered first within {DEFER_LIMIT_MS:.0f} ms")


if __name__ == "__main__":
    asyncio.run(main())
