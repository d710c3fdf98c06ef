"""The messages of reports about a finished game (review, replay, record), shared by their
commands and the buttons of a result card. Helpers, not a cog."""

from __future__ import annotations

import io

import discord

from ai.error_scale import THRESHOLDS
from app.league import RecordFile
from app.records import variant_name
from app.reports import Job, Review, review_text
from engine import get_variant

REPLAY_FILE = "replay-{id}.gif"
CHART_FILE = "chances-{id}.png"


#: How a review explains its figures, after the unit's own note (docs/analysis.md).
SCALE_NOTE = (
    " The error rate is the equity lost per decision in thousandths of a game: each loss "
    "divided by what the game was worth in that position, the scale of the computer levels' "
    "benchmark, the same for every variant. The performance rating is half of it (0 is "
    "perfect; about 5 is world class in backgammon). A mistake is "
    + ", ".join(f"{name} from {threshold:.0f}" for threshold, name in reversed(THRESHOLDS))
    + " thousandths."
)


def unit_note(unit: str) -> str:
    if unit == "pip":
        return "Equity is in pips (the game scores the loser's pips)." + SCALE_NOTE
    return "Equity is in points per unit of stake." + SCALE_NOTE


def replay_message(job: Job, gif: bytes) -> tuple[str, discord.File]:
    found = job.game
    names = job.state.players
    text = (
        f"Replay of game #{found.id}: {names[0]} vs {names[1]} "
        f"({variant_name(found.variant)}), one frame per play."
    )
    return text, discord.File(io.BytesIO(gif), filename=REPLAY_FILE.format(id=found.id))


def review_message(done: Review) -> tuple[discord.Embed, discord.File]:
    found, names = done.game, done.names
    unit = get_variant(found.variant).score_unit
    embed = discord.Embed(
        title=f"Review of game #{found.id}: {names[0]} vs {names[1]}",
        description=f"{variant_name(found.variant)}. " + unit_note(unit),
        colour=discord.Colour.dark_green(),
    )
    for seat in (0, 1):
        embed.add_field(
            name=names[seat][:250],
            value=review_text(done.reviews[seat], unit, done.counts(seat))[:1024],
            inline=False,
        )
    embed.set_image(url=f"attachment://{CHART_FILE.format(id=found.id)}")
    file = discord.File(
        io.BytesIO(done.chart), filename=CHART_FILE.format(id=found.id), description=done.chart_alt
    )
    return embed, file


def record_message(made: RecordFile) -> tuple[str, discord.File]:
    names = made.names
    text = (
        f"Record of game #{made.game.id}: {names[0]} vs {names[1]} "
        f"({variant_name(made.game.variant)})."
    )
    return text, discord.File(io.BytesIO(made.body), filename=made.filename)
