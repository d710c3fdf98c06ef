"""The persistent buttons of games and challenges (their ids are in the custom_id, so they
work across restarts). Each is made from its decoded click and hands it to the Games cog."""

from __future__ import annotations

from typing import Any, Protocol, Self, cast

import discord

from discord_ui.custom_ids import (
    BUILDER_TEMPLATE,
    CHALLENGE_TEMPLATE,
    CONFIRM_TEMPLATE,
    GAME_TEMPLATE,
    RESULT_TEMPLATE,
    STEP_TEMPLATE,
    BuilderClick,
    ChallengeClick,
    Click,
    ConfirmClick,
    GameClick,
    ResultClick,
)
from discord_ui.items import ActionButton, AnsweredItem


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


class GameButton(ActionButton, template=GAME_TEMPLATE):
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
        super().__init__(action, f"bg:{action}:{game_id}:{version}")
        self.game_id = game_id
        self.version = version

    @classmethod
    def from_click(cls, click: Click) -> Self | None:
        if isinstance(click, GameClick):
            return cls(click.action, click.game_id, click.version)
        return None

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        cog = _games_cog(interaction)
        await cog.button_action(interaction, self.action, self.game_id, self.version)


class ChallengeButton(ActionButton, template=CHALLENGE_TEMPLATE):
    """Accept and Decline under a challenge."""

    LABELS = {"accept": "Accept", "decline": "Decline"}
    STYLES = {"accept": discord.ButtonStyle.success}

    def __init__(self, action: str, challenge_id: int) -> None:
        super().__init__(action, f"bg:{action}:{challenge_id}")
        self.challenge_id = challenge_id

    @classmethod
    def from_click(cls, click: Click) -> Self | None:
        if isinstance(click, ChallengeClick):
            return cls(click.action, click.challenge_id)
        return None

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        cog = _games_cog(interaction)
        await cog.answer_challenge(interaction, self.action == "accept", self.challenge_id)


class ResultButton(ActionButton, template=RESULT_TEMPLATE):
    """The buttons of a result card: a rematch, and the game's review, replay and record
    (shown to whoever clicks, privately)."""

    LABELS = {"rematch": "Rematch", "review": "Review", "replay": "Replay", "record": "Record"}
    STYLES = {"rematch": discord.ButtonStyle.primary}

    def __init__(self, action: str, game_id: int) -> None:
        super().__init__(action, f"bg:res:{action}:{game_id}")
        self.game_id = game_id

    @classmethod
    def from_click(cls, click: Click) -> Self | None:
        if isinstance(click, ResultClick):
            return cls(click.action, click.game_id)
        return None

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        cog = _games_cog(interaction)
        await cog.result_action(interaction, self.action, self.game_id)


class ConfirmButton(ActionButton, template=CONFIRM_TEMPLATE):
    """Confirm (or cancel) a resignation or an abort asked with /resign or /abort."""

    LABELS = {"resign": "Resign", "abort": "Abort the game", "cancel": "Cancel"}
    STYLES = {"resign": discord.ButtonStyle.danger, "abort": discord.ButtonStyle.danger}

    def __init__(self, action: str, game_id: int, version: int, level: int = 0) -> None:
        super().__init__(action, f"bg:cf:{action}:{game_id}:{version}:{level}")
        self.game_id = game_id
        self.version = version
        self.level = level

    @classmethod
    def from_click(cls, click: Click) -> Self | None:
        if isinstance(click, ConfirmClick):
            return cls(click.action, click.game_id, click.version, click.level)
        return None

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        cog = _games_cog(interaction)
        await cog.confirm_action(interaction, self.action, self.game_id, self.version, self.level)


class BuilderButton(ActionButton, template=BUILDER_TEMPLATE):
    """Undo, Confirm and Start over in the move builder (a private message of the mover)."""

    LABELS = {"undo": "Undo", "confirm": "Confirm", "reset": "Start over"}
    STYLES = {"confirm": discord.ButtonStyle.success}

    def __init__(
        self, action: str, game_id: int, version: int, steps: str, *, disabled: bool = False
    ) -> None:
        super().__init__(action, f"bg:mb:{action}:{game_id}:{version}:{steps}", disabled=disabled)
        self.game_id = game_id
        self.version = version
        self.steps = steps

    @classmethod
    def from_click(cls, click: Click) -> Self | None:
        if isinstance(click, BuilderClick):
            return cls(click.action, click.game_id, click.version, click.steps)
        return None

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        cog = _games_cog(interaction)
        await cog.builder_action(
            interaction, self.action, self.game_id, self.version, self.steps, None
        )


class BuilderSelect(AnsweredItem[discord.ui.Select[Any]], template=STEP_TEMPLATE):
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
    def from_click(cls, click: Click) -> Self | None:
        if isinstance(click, BuilderClick):
            return cls(click.row, click.game_id, click.version, click.steps)
        return None

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        cog = _games_cog(interaction)
        values = self.item.values
        await cog.builder_action(
            interaction,
            "step",
            self.game_id,
            self.version,
            self.steps,
            values[0] if values else None,
        )
