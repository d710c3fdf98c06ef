"""The persistent buttons of games and challenges (their ids are in the custom_id, so they
work across restarts). Each decodes its custom_id and hands the click to the Games cog."""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from cogs.common import guarded


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
    template=r"bg:(?P<action>roll|double|take|pass|rsyes|rsno):(?P<game>\d+):(?P<version>\d+)",
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

    def __init__(self, action: str, game_id: int, version: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=self.LABELS[action],
                style=self.STYLES[action],
                custom_id=f"bg:{action}:{game_id}:{version}",
            )
        )
        self.action = action
        self.game_id = game_id
        self.version = version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GameButton:
        return cls(match["action"], int(match["game"]), int(match["version"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = _games_cog(interaction)
        await guarded(
            interaction, cog.button_action(interaction, self.action, self.game_id, self.version)
        )


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:(?P<action>accept|decline):(?P<challenge>\d+)",
):
    """Accept and Decline under a challenge."""

    def __init__(self, action: str, challenge_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=action.capitalize(),
                style=discord.ButtonStyle.success
                if action == "accept"
                else discord.ButtonStyle.secondary,
                custom_id=f"bg:{action}:{challenge_id}",
            )
        )
        self.action = action
        self.challenge_id = challenge_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ChallengeButton:
        return cls(match["action"], int(match["challenge"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = _games_cog(interaction)
        await guarded(
            interaction,
            cog.answer_challenge(interaction, self.action == "accept", self.challenge_id),
        )
