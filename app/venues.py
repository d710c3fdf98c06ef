"""Where a command was used, and what the bot may do there.

Discord lets an app be installed to a server (the bot joins it) and to a user's account (its
commands follow the user into servers without the bot, group DMs and DMs). The front end says
where an interaction came from; this module decides what that means for a game:

- ``"guild"``: a server the app is installed to. Everything works (ratings, leaderboards,
  challenges between people, threads).
- ``"dm"``: the direct messages between a player and the bot. The bot may post there, but no
  server owns the game: practice against the computer, never rated.
- ``"user"``: anywhere else the app is installed to the player's account. The bot is not a
  member of the channel: only the player's interactions (their responses and follow-ups, for 15
  minutes) reach it. Practice against the computer as in a DM.
"""

from __future__ import annotations

from app.errors import Refusal
from storage import NO_GUILD, GameContext

#: Where a command was used (stored with a game as its context).
Venue = GameContext

__all__ = ["NO_GUILD", "NeedsServer", "Venue", "guild_scope", "venue"]


def venue(*, guild_id: int | None, guild_installed: bool, bot_dm: bool) -> Venue:
    """Where an interaction came from: ``guild_installed`` when the app is installed to the
    interaction's server (Discord's authorizing integration owners name it); ``bot_dm`` in
    the direct messages between the user and the bot."""
    if bot_dm:
        return "dm"
    if guild_id is not None and guild_installed:
        return "guild"
    return "user"


def guild_scope(guild_id: int | None, where: Venue) -> int:
    """The guild whose games, ratings and settings a command sees: the server's where the
    bot is, else :data:`NO_GUILD` (the player's practice games)."""
    if where == "guild" and guild_id is not None:
        return guild_id
    return NO_GUILD


class NeedsServer(Refusal):
    """A command that needs the bot in the server, used where it is not."""

    def __init__(self, what: str, where: Venue) -> None:
        place = "in direct messages" if where == "dm" else "here (the bot is not in this server)"
        super().__init__(
            f"{what} needs this bot in a server, so it does not work {place}. Here you can "
            "play the computer (/challenge without an opponent), and see /stats and /rules; "
            "to play people, invite the bot to a server (its profile's Add App button)."
        )
