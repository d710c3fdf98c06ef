"""Slash-command options checked when they arrive, not only by Discord's client.

Discord's client enforces an option's range and choices, but a modified client or an API change
can send anything. Each option kind here states its limits once: the same transformer tells
Discord the limits (so the client shows them) and checks the value the bot receives, refusing
with :class:`OptionError`, whose message the error boundary shows to the user.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from engine import VARIANTS
from engine.game import MAX_MATCH_LENGTH

#: Longest match a challenge may ask for, in points.
#: Timer settings of /settings.
MAX_HOURS = 366 * 24
MAX_CHALLENGE_MINUTES = 7 * 24 * 60
#: Largest integer Discord accepts for an integer option (2^53 - 1); also bounds game numbers.
MAX_OPTION_INT = 9_007_199_254_740_991


class OptionError(app_commands.AppCommandError):
    """An option value the bot refuses; the message is for the person who sent it."""


class WholeNumber(app_commands.Transformer):
    """An integer option from ``low`` to ``high``."""

    def __init__(self, what: str, low: int, high: int) -> None:
        self.what = what
        self.low = low
        self.high = high

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.integer

    @property
    def min_value(self) -> int:
        return self.low

    @property
    def max_value(self) -> int:
        return self.high

    async def transform(self, interaction: discord.Interaction[Any], value: Any, /) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            try:  # Discord sends integers; anything else is refused unless it is one in disguise
                number = int(str(value), 10)
            except ValueError:
                raise OptionError(f"{self.what} must be a whole number.") from None
        else:
            number = value
        if not self.low <= number <= self.high:
            raise OptionError(f"{self.what} must be from {self.low} to {self.high}.")
        return number


class VariantOption(app_commands.Transformer):
    """A variant id, offered as a choice list; anything else is refused."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    @property
    def choices(self) -> list[app_commands.Choice[int | float | str]]:
        # Typed as the base class's property (a list is invariant in its item type).
        return [app_commands.Choice(name=v.name, value=v.id) for v in VARIANTS.values()]

    async def transform(
        self, interaction: discord.Interaction[Any], value: Any, /
    ) -> app_commands.Choice[str]:
        variant = VARIANTS.get(value) if isinstance(value, str) else None
        if variant is None:
            shown = str(value)[:40]
            known = ", ".join(f"`{v}`" for v in VARIANTS)
            raise OptionError(f"There is no variant `{shown}`. Choose one of {known}.")
        return app_commands.Choice(name=variant.name, value=variant.id)


MatchLength = app_commands.Transform[int, WholeNumber("The match length", 1, MAX_MATCH_LENGTH)]
Variant = app_commands.Transform[app_commands.Choice[str], VariantOption]
GameNumber = app_commands.Transform[int, WholeNumber("The game number", 1, MAX_OPTION_INT)]
Hours = app_commands.Transform[int, WholeNumber("The number of hours", 1, MAX_HOURS)]
ChallengeMinutes = app_commands.Transform[
    int, WholeNumber("The number of minutes", 1, MAX_CHALLENGE_MINUTES)
]
SeasonMonths = app_commands.Transform[int, WholeNumber("The number of months", 1, 12)]


#: What each plain option type arrives as (JSON); entities (users, channels...) arrive as ids.
_ARRIVES_AS: dict[discord.AppCommandOptionType, tuple[tuple[type, ...], str]] = {
    discord.AppCommandOptionType.boolean: ((bool,), "true or false"),
    discord.AppCommandOptionType.string: ((str,), "text"),
    discord.AppCommandOptionType.integer: ((int,), "a whole number"),
    discord.AppCommandOptionType.number: ((int, float), "a number"),
}
_GROUPS = (1, 2)  # subcommand, subcommand group: their options are the next level down
#: Options that name a Discord object by its id (a snowflake: 1 to 2^63 - 1).
_ENTITIES = {
    discord.AppCommandOptionType.user: "a member of this server",
    discord.AppCommandOptionType.channel: "a channel",
    discord.AppCommandOptionType.role: "a role",
    discord.AppCommandOptionType.mentionable: "a member or a role",
    discord.AppCommandOptionType.attachment: "an attached file",
}
MAX_SNOWFLAKE = 2**63 - 1


def _is_snowflake(value: object) -> bool:
    text = str(value) if isinstance(value, int | str) and not isinstance(value, bool) else ""
    return text.isascii() and text.isdigit() and 0 < int(text) <= MAX_SNOWFLAKE


def check_option_types(interaction: discord.Interaction[Any]) -> None:
    """Refuse (:class:`OptionError`) an option whose value is not of its type: a boolean sent
    as a number, text for a number, a user id that is not a snowflake. Discord checks this, a
    modified client need not, and both discord.py (which turns ids into objects before a
    command runs, and fails on one that is not a number) and the commands take the types for
    granted. Autocompletes are checked for ids only (the focused value is what is typed)."""
    if not isinstance(interaction.data, dict):
        return
    options: Any = interaction.data.get("options") or []
    while (
        isinstance(options, list)
        and options
        and isinstance(options[0], dict)
        and options[0].get("type") in _GROUPS
    ):
        options = options[0].get("options") or []
    if not isinstance(options, list) or not all(isinstance(o, dict) for o in options):
        raise OptionError("The options of this command are malformed.")
    command = interaction.command
    declared = (
        {p.name: p for p in command.parameters} if isinstance(command, app_commands.Command) else {}
    )
    full = interaction.type == discord.InteractionType.application_command
    for option in options:
        parameter = declared.get(str(option.get("name")))
        name = parameter.display_name if parameter is not None else str(option.get("name"))[:32]
        value = option.get("value")
        sent_as = option.get("type")
        entity = next((t for t in _ENTITIES if t.value == sent_as), None)
        if parameter is not None and parameter.type in _ENTITIES:
            entity = parameter.type
        if entity is not None and not option.get("focused"):
            if not _is_snowflake(value):
                raise OptionError(f"The option `{name}` must name {_ENTITIES[entity]}.")
            continue
        if not full or parameter is None or parameter.type not in _ARRIVES_AS:
            continue
        kinds, what = _ARRIVES_AS[parameter.type]
        wants_bool = parameter.type == discord.AppCommandOptionType.boolean
        if not isinstance(value, kinds) or (isinstance(value, bool) and not wants_bool):
            raise OptionError(f"The option `{name}` must be {what}.")
