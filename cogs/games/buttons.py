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

    async def result_action(
        self, interaction: discord.Interaction[Any], action: str, game_id: int
    ) -> None: ...

    async def builder_action(
        self,
        interaction: discord.Interaction[Any],
        action: str,
        game_id: int,
        version: int,
        steps: str,
        value: str | None,
    ) -> None: ...

    async def confirm_action(
        self,
        interaction: discord.Interaction[Any],
        action: str,
        game_id: int,
        version: int,
        level: int,
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
    template=r"bg:(?P<action>roll|double|take|pass|rsyes|rsno|play):(?P<game>\d+):(?P<version>\d+)",
):
    """The buttons under a board. ``rsyes`` and ``rsno`` accept or reject an offer to resign;
    ``play`` opens the move builder (only for the player to move)."""

    LABELS = {
        "play": "Play",
        "roll": "Roll",
        "double": "Double",
        "take": "Take",
        "pass": "Pass",
        "rsyes": "Accept resignation",
        "rsno": "Reject",
    }
    STYLES = {
        "play": discord.ButtonStyle.primary,
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


class ResultButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:res:(?P<action>rematch|review|replay|record):(?P<game>\d+)",
):
    """The buttons of a result card: a rematch, and the game's review, replay and record
    (shown to whoever clicks, privately)."""

    LABELS = {"rematch": "Rematch", "review": "Review", "replay": "Replay", "record": "Record"}

    def __init__(self, action: str, game_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=self.LABELS[action],
                style=discord.ButtonStyle.primary
                if action == "rematch"
                else discord.ButtonStyle.secondary,
                custom_id=f"bg:res:{action}:{game_id}",
            )
        )
        self.action = action
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ResultButton:
        return cls(match["action"], int(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = _games_cog(interaction)
        await guarded(interaction, cog.result_action(interaction, self.action, self.game_id))


class ConfirmButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:cf:(?P<action>resign|abort|cancel):(?P<game>\d+):(?P<version>\d+):(?P<level>\d)",
):
    """Confirm (or cancel) a resignation or an abort asked with /resign or /abort."""

    LABELS = {"resign": "Resign", "abort": "Abort the game", "cancel": "Cancel"}

    def __init__(self, action: str, game_id: int, version: int, level: int = 0) -> None:
        super().__init__(
            discord.ui.Button(
                label=self.LABELS[action],
                style=discord.ButtonStyle.secondary
                if action == "cancel"
                else discord.ButtonStyle.danger,
                custom_id=f"bg:cf:{action}:{game_id}:{version}:{level}",
            )
        )
        self.action = action
        self.game_id = game_id
        self.version = version
        self.level = level

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ConfirmButton:
        return cls(match["action"], int(match["game"]), int(match["version"]), int(match["level"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = _games_cog(interaction)
        await guarded(
            interaction,
            cog.confirm_action(interaction, self.action, self.game_id, self.version, self.level),
        )


#: The builder's steps so far, encoded (see ``engine.builder``): letters, digits, - and _.
_STEPS = r"(?P<steps>[A-Za-z0-9_\-]{0,60})"


class BuilderButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:mb:(?P<action>undo|confirm|reset):(?P<game>\d+):(?P<version>\d+):" + _STEPS,
):
    """Undo, Confirm and Start over in the move builder (a private message of the mover)."""

    LABELS = {"undo": "Undo", "confirm": "Confirm", "reset": "Start over"}
    STYLES = {
        "undo": discord.ButtonStyle.secondary,
        "confirm": discord.ButtonStyle.success,
        "reset": discord.ButtonStyle.secondary,
    }

    def __init__(
        self, action: str, game_id: int, version: int, steps: str, *, disabled: bool = False
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=self.LABELS[action],
                style=self.STYLES[action],
                custom_id=f"bg:mb:{action}:{game_id}:{version}:{steps}",
                disabled=disabled,
            )
        )
        self.action = action
        self.game_id = game_id
        self.version = version
        self.steps = steps

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> BuilderButton:
        return cls(match["action"], int(match["game"]), int(match["version"]), match["steps"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = _games_cog(interaction)
        await guarded(
            interaction,
            cog.builder_action(
                interaction, self.action, self.game_id, self.version, self.steps, None
            ),
        )


class BuilderSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"bg:ms:(?P<row>\d):(?P<game>\d+):(?P<version>\d+):" + _STEPS,
):
    """The legal next steps of the move builder (one menu per die value)."""

    def __init__(
        self,
        row: int,
        game_id: int,
        version: int,
        steps: str,
        options: list[discord.SelectOption] | None = None,
        placeholder: str | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"bg:ms:{row}:{game_id}:{version}:{steps}",
                options=options or [discord.SelectOption(label="-", value="-")],
                placeholder=placeholder,
            )
        )
        self.game_id = game_id
        self.version = version
        self.steps = steps

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> BuilderSelect:
        return cls(int(match["row"]), int(match["game"]), int(match["version"]), match["steps"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = _games_cog(interaction)
        values = self.item.values
        await guarded(
            interaction,
            cog.builder_action(
                interaction,
                "step",
                self.game_id,
                self.version,
                self.steps,
                values[0] if values else None,
            ),
        )
