"""The persistent buttons of games and challenges (their ids are in the custom_id, so they
work across restarts). Each decodes its custom_id and hands the click to the Games cog."""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from cogs.boundary import tell_user
from cogs.common import guarded
from cogs.custom_ids import (
    CHALLENGE_TEMPLATE,
    GAME_TEMPLATE,
    STALE_BUTTON,
    ChallengeClick,
    GameClick,
    decode_custom_id,
)


class _GameActions(Protocol):
    async def button_action(
        self, interaction: discord.Interaction[Any], action: str, game_id: int, version: int
    ) -> None: ...

    async def answer_challenge(
        self, interaction: discord.Interaction[Any], accept: bool, challenge_id: int | None
    ) -> None: ...


def _games_cog(interaction: discord.Interaction[Any]) -> _GameActions:
    cog = interaction.client.get_cog("Games")
    assert cog is not None and hasattr(cog, "button_action"), "the Games cog is loaded"
    return cast(_GameActions, cog)  # checked just above; a Cog carries no protocol


class GameButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=GAME_TEMPLATE,
):
    """The buttons under a board. ``rsyes`` and ``rsno`` accept or reject an offer to resign."""

    LABELS = {
        "roll": "Roll",
        "double": "Double",
        "take": "Take",
        "pass": "Pass",
        "rsyes": "Accept resignation",
        "rsno": "Reject",
    }
    STYLES = {
        "roll": discord.ButtonStyle.primary,
        "double": discord.ButtonStyle.secondary,
        "take": discord.ButtonStyle.success,
        "pass": discord.ButtonStyle.danger,
        "rsyes": discord.ButtonStyle.success,
        "rsno": discord.ButtonStyle.secondary,
    }

    def __init__(self, action: str, game_id: int, version: int, *, unusable: str = "") -> None:
        super().__init__(
            discord.ui.Button(
                label=self.LABELS.get(action, "?"),
                style=self.STYLES.get(action, discord.ButtonStyle.secondary),
                custom_id=unusable or f"bg:{action}:{game_id}:{version}",
            )
        )
        self.action = action
        self.game_id = game_id
        self.version = version
        #: The click cannot name a game (a forged id): answered as a stale button.
        self.unusable = bool(unusable)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GameButton:
        click = decode_custom_id(match.string)
        if not isinstance(click, GameClick):
            # Never raise here: discord.py would drop the click unanswered.
            return cls(match["action"], 0, 0, unusable=match.string)
        return cls(click.action, click.game_id, click.version)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if self.unusable:
            await tell_user(interaction, STALE_BUTTON)
            return
        cog = _games_cog(interaction)
        await guarded(
            interaction, cog.button_action(interaction, self.action, self.game_id, self.version)
        )


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=CHALLENGE_TEMPLATE,
):
    """Accept and Decline under a challenge."""

    def __init__(self, action: str, challenge_id: int, *, unusable: str = "") -> None:
        super().__init__(
            discord.ui.Button(
                label=action.capitalize(),
                style=discord.ButtonStyle.success
                if action == "accept"
                else discord.ButtonStyle.secondary,
                custom_id=unusable or f"bg:{action}:{challenge_id}",
            )
        )
        self.action = action
        self.challenge_id = challenge_id
        self.unusable = bool(unusable)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ChallengeButton:
        click = decode_custom_id(match.string)
        if not isinstance(click, ChallengeClick):
            return cls(match["action"], 0, unusable=match.string)
        return cls(click.action, click.challenge_id)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if self.unusable:
            await tell_user(interaction, STALE_BUTTON)
            return
        cog = _games_cog(interaction)
        await guarded(
            interaction,
            cog.answer_challenge(interaction, self.action == "accept", self.challenge_id),
        )
