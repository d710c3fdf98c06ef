"""Domain objects returned by :class:`storage.Database` (immutable snapshots of rows).

Winner convention at the storage boundary: a winner is a Discord **user id** (``winner_id`` of
:class:`MatchResult` and of :class:`Game`), never a seat index or a letter; None means no
winner (a ``tie`` or ``draw``). Seats appear only in column names: ``player_x`` / ``score_x``
are the first seat (the challenger, the engine's seat 0), ``player_o`` / ``score_o`` the second
(seat 1; the computer in a game against it). Callers convert the engine's seats to user ids
before calling storage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.variants.base import ResultKind
from league.glicko2 import PROVISIONAL_RD, Rating

#: The pseudo-variant of the ratings rows that rate a player across all variants.
OVERALL = "overall"

GameStatus = Literal["active", "finished", "aborted"]
ChallengeStatus = Literal["open", "accepted", "declined", "expired", "cancelled"]
#: Where a game is played: a server with the bot, the bot's DM, or only through the
#: interactions of a player who installed the app to their account (see migration 0011).
GameContext = Literal["guild", "dm", "user"]
GAME_CONTEXTS: tuple[GameContext, ...] = ("guild", "dm", "user")
#: The guild_id of the games and challenges of no server (Discord ids are never 0).
NO_GUILD = 0

GAME_STATUSES: frozenset[str] = frozenset({"active", "finished", "aborted"})
CHALLENGE_STATUSES: frozenset[str] = frozenset(
    {"open", "accepted", "declined", "expired", "cancelled"}
)
#: How a game can end: the engine's kinds (one home for that fact), as stored.
RESULT_KINDS: frozenset[str] = frozenset(kind.value for kind in ResultKind)
#: Results without a winner: 0 points, rated as a draw (0.5 each).
DRAWN_KINDS: frozenset[str] = frozenset({"tie", "draw"})
#: Kinds of history rows. "pass" is a cube pass (drop); "claim" a win claimed on timeout.
MOVE_KINDS: frozenset[str] = frozenset(
    {
        "start",
        "roll",
        "play",
        "double",
        "take",
        "pass",
        "resign",
        "claim",
        "timeout",
        "abort",
        "note",
    }
)

DEFAULT_REMINDER_AFTER_SECONDS = 24 * 3600
DEFAULT_CLAIM_AFTER_SECONDS = 72 * 3600
DEFAULT_CHALLENGE_EXPIRY_SECONDS = 600
#: The board theme of a server that never chose one (a name of render.theme.THEMES; storage
#: only keeps the name, the cogs check it).
DEFAULT_BOARD_THEME = "default"
#: Longest theme name stored (the names are short identifiers).
MAX_THEME_NAME = 40


@dataclass(frozen=True, slots=True)
class GuildSettings:
    guild_id: int
    reminder_after_seconds: int = DEFAULT_REMINDER_AFTER_SECONDS
    claim_after_seconds: int = DEFAULT_CLAIM_AFTER_SECONDS
    challenge_expiry_seconds: int = DEFAULT_CHALLENGE_EXPIRY_SECONDS
    board_theme: str = DEFAULT_BOARD_THEME
    #: Accepting a challenge opens a thread for the game (where the bot may create one).
    game_threads: bool = True
    #: Members with this role may run tournaments (besides those with Manage Server).
    organiser_role_id: int | None = None
    #: How many calendar months a leaderboard season lasts.
    season_months: int = 1


#: When a player is pinged as their turn starts (``PlayerPreferences.pings``).
PING_POLICIES = ("always", "away", "never")


@dataclass(frozen=True, slots=True)
class PlayerPreferences:
    """How one player sees boards shown to them alone, the same in every server."""

    user_id: int
    #: None: the theme of the server the board is shown in.
    board_theme: str | None = None
    #: True (the default): private boards are drawn from the player's own side of the table;
    #: False: from the side the game's shared board is drawn from.
    own_side: bool = True
    #: "always", "away" (only when they have not acted in that game for two minutes) or
    #: "never".
    pings: str = "away"


@dataclass(frozen=True, slots=True)
class Challenge:
    id: int
    guild_id: int
    channel_id: int
    challenger_id: int
    opponent_id: int | None  # None: anyone in the channel may accept
    variant: str
    match_length: int
    message_id: int | None
    status: ChallengeStatus
    created_at: float
    expires_at: float
    game_id: int | None  # set when the challenge was accepted
    options: tuple[str, ...] = ()  # rule options for the game (RULES names, sorted)
    hints: bool = False  # the challenger offers a game with /hint allowed (unrated)
    #: Closed, its message not yet edited to say so (see ``Storage.unretired_challenges``).
    retire_owed: bool = False

    def is_expired(self, now: float) -> bool:
        return self.status == "expired" or (self.status == "open" and self.expires_at <= now)


@dataclass(frozen=True, slots=True)
class Game:
    id: int
    guild_id: int
    channel_id: int
    variant: str
    player_x: int
    player_o: int
    match_length: int
    status: GameStatus
    state_json: str
    version: int
    board_message_id: int | None
    created_at: float
    last_action_at: float
    reminded_at: float | None
    finished_at: float | None
    #: The user id of the match's winner; None while active, when aborted, or for a tie/draw.
    winner_id: int | None
    result_kind: ResultKind | None
    points: int | None
    score_x: int
    score_o: int
    #: The computer's level when seat O is the computer (the bot itself); None: two people.
    ai_level: str | None = None
    #: False keeps the game out of the ratings (against the computer, or with hints).
    rated: bool = True
    #: Both players agreed to allow /hint.
    hints: bool = False
    #: The version whose board the channel is still owed (committed, board not yet out);
    #: None when the channel shows the game as it is.
    board_owed_version: int | None = None
    #: The channel whose challenge opened this game's thread (``channel_id`` is the thread);
    #: None when the game is played in the channel itself.
    parent_channel_id: int | None = None
    #: Where it is played; outside ``"guild"`` it belongs to no server (``guild_id`` 0).
    context: GameContext = "guild"

    @property
    def in_server(self) -> bool:
        """Played in a server with the bot (rated if agreed, on its leaderboard and /games)."""
        return self.context == "guild"

    @property
    def channel_reachable(self) -> bool:
        """Whether the bot may post and edit in the game's channel itself; False: only the
        players' interactions (responses and their follow-ups) reach it."""
        return self.context != "user"

    @property
    def home_channel_id(self) -> int:
        """The channel the game was challenged in (where its result card goes)."""
        return self.channel_id if self.parent_channel_id is None else self.parent_channel_id

    @property
    def against_computer(self) -> bool:
        return self.ai_level is not None

    @property
    def players(self) -> tuple[int, int]:
        return (self.player_x, self.player_o)

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def has_player(self, user_id: int) -> bool:
        return user_id in (self.player_x, self.player_o)

    def opponent_of(self, user_id: int) -> int:
        """The other player; ``ValueError`` if ``user_id`` does not play this game."""
        if user_id == self.player_x:
            return self.player_o
        if user_id == self.player_o:
            return self.player_x
        raise ValueError(f"user {user_id} does not play game {self.id}")

    def idle_seconds(self, now: float) -> float:
        return max(0.0, now - self.last_action_at)


@dataclass(frozen=True, slots=True)
class NewMove:
    """A history row to append (input of ``commit_action`` / ``finish_game`` / ``abort_game``).

    ``actor_id`` is None for an action of the bot itself (e.g. an automatic forced roll).
    """

    actor_id: int | None
    kind: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class Move:
    game_id: int
    seq: int
    actor_id: int | None
    kind: str
    text: str
    at: float


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How a stored game (a match of ``match_length`` points) ended, between user ids: the
    input of ``finish_game`` and of a bulk import.

    Not the engine's ``engine.game.GameResult`` (one game of a match, winner as a seat, no
    match score): the caller converts that at the boundary (winner seat -> user id, plus the
    final match score). ``winner_id`` is the user id of the match's winner, one of the game's
    ``player_x`` / ``player_o``, and None exactly for the 0-point kinds ``tie`` and ``draw``.
    ``kind`` and ``points`` are those of the last game (cube value x 1/2/3, pips x 1/2/3, 2 for
    a mother win, 0 for a tie). ``score_x`` / ``score_o`` are the final match scores of the
    seats ``player_x`` / ``player_o``; left None, they are derived for a one-game match: the
    winner's score is ``points``, the loser's 0.
    """

    winner_id: int | None
    kind: ResultKind
    points: int
    score_x: int | None = None
    score_o: int | None = None


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One ratings row: a player's rating and statistics in one variant (or ``OVERALL``)."""

    guild_id: int
    variant: str
    user_id: int
    rating: float
    rd: float
    volatility: float
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    points_won: int = 0
    points_lost: int = 0
    gammons_won: int = 0
    backgammons_won: int = 0
    mother_wins: int = 0
    current_streak: int = 0  # > 0: wins in a row; < 0: losses in a row
    best_streak: int = 0  # longest run of wins
    last_played_at: float | None = None

    @property
    def provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD

    @property
    def glicko(self) -> Rating:
        return Rating(self.rating, self.rd, self.volatility)


@dataclass(frozen=True, slots=True)
class RatingChange:
    """A rating update made by ``finish_game`` (one per player and per variant row)."""

    user_id: int
    variant: str
    before: Rating
    after: Rating

    @property
    def delta(self) -> float:
        return self.after.rating - self.before.rating


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What ``finish_game`` did: the final game row and the four rating changes
    (both players, in the game's variant and in ``OVERALL``)."""

    game: Game
    rating_changes: tuple[RatingChange, ...]

    def change_for(self, user_id: int, variant: str) -> RatingChange | None:
        for change in self.rating_changes:
            if change.user_id == user_id and change.variant == variant:
                return change
        return None


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """``rank`` is shared by exactly equal ratings (standard competition ranking: 1, 2, 2, 4)."""

    rank: int
    user_id: int
    rating: float
    rd: float
    provisional: bool
    games: int
    wins: int
    losses: int
    draws: int
    points_won: int


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """One point of a player's rating history (after the game ``game_id``)."""

    game_id: int
    variant: str
    rating: float
    rd: float
    at: float


@dataclass(frozen=True, slots=True)
class ComputerRecord:
    """A player's finished games against one level of the computer."""

    level: str
    games: int
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True, slots=True)
class ImportedGame:
    """A finished game for :meth:`storage.Database.bulk_import_finished_games`."""

    guild_id: int
    channel_id: int
    variant: str
    player_x: int
    player_o: int
    result: MatchResult
    created_at: float
    finished_at: float
    match_length: int = 1
    state_json: str = "{}"


@dataclass(frozen=True, slots=True)
class Shards:
    """The gateway shards one bot process runs: ``ids`` out of ``count``. Discord puts a guild
    on shard ``(guild_id >> 22) % count``; the timed sweeps of a process only touch the guilds
    of its own shards, so that processes sharing a database never both act on one game."""

    count: int
    ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.count < 1 or not self.ids or len(set(self.ids)) != len(self.ids):
            raise ValueError(f"invalid shards {self.ids} of {self.count}")
        if not all(0 <= i < self.count for i in self.ids):
            raise ValueError(f"shard ids {self.ids} must be in 0..{self.count - 1}")

    @staticmethod
    def shard_of(guild_id: int, count: int) -> int:
        return (guild_id >> 22) % count

    def owns(self, guild_id: int) -> bool:
        return self.shard_of(guild_id, self.count) in self.ids


# ---------------------------------------------------------------------- tournaments

TournamentState = Literal["registration", "running", "finished", "cancelled"]
PairingState = Literal["pending", "playing", "finished", "forfeited", "bye"]
TOURNAMENT_FORMATS: tuple[str, ...] = ("swiss", "knockout", "round-robin", "arena")
#: Longest tournament name stored.
MAX_TOURNAMENT_NAME = 80


@dataclass(frozen=True, slots=True)
class Tournament:
    id: int
    guild_id: int
    channel_id: int
    name: str
    format: str
    variant: str
    match_length: int
    #: Rounds asked for (None: the format's default until the start fixes it).
    rounds: int | None
    #: A round's time in minutes (a match nobody starts in it is a double forfeit); in an
    #: arena, how long the arena runs.
    minutes: int
    starts_at: float | None
    rated: bool
    max_players: int | None
    state: TournamentState
    current_round: int
    round_started_at: float | None
    organiser_id: int
    signup_message_id: int | None
    created_at: float
    started_at: float | None
    finished_at: float | None
    #: The last round whose pairings were announced in the channel (see migration 0013).
    announced_round: int = 0

    @property
    def is_open(self) -> bool:
        return self.state == "registration"


@dataclass(frozen=True, slots=True)
class TournamentEntrant:
    tournament_id: int
    user_id: int
    #: 1 for the first to join, 2 for the next...
    joined_order: int
    #: The seed rating (read from the ratings when the event starts).
    rating: float
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class NewPairing:
    """A pairing about to be stored (``second_id`` None: a bye)."""

    table_no: int
    first_id: int
    second_id: int | None


@dataclass(frozen=True, slots=True)
class TournamentPairing:
    id: int
    tournament_id: int
    round: int
    table_no: int
    first_id: int
    second_id: int | None
    game_id: int | None
    thread_id: int | None
    state: PairingState
    #: Finished: the match's winner (None: a draw). Forfeited: who won by forfeit (None: a
    #: double forfeit).
    winner_id: int | None
    first_points: int
    second_points: int
    forfeit: bool
    #: The order results came in (1, 2, ... within the event).
    sequence: int
    #: False: its thread and pings are still owed.
    posted: bool
    created_at: float
    finished_at: float | None

    @property
    def is_bye(self) -> bool:
        return self.second_id is None

    @property
    def is_done(self) -> bool:
        return self.state in ("finished", "forfeited", "bye")

    def has_player(self, user_id: int) -> bool:
        return user_id in (self.first_id, self.second_id)


@dataclass(frozen=True, slots=True)
class SeasonRow:
    """A player's results within a season's dates (ratings stay continuous across seasons).
    ``rank``: by score (a win 1, a draw 0.5), then rating gained in the season."""

    rank: int
    user_id: int
    games: int
    wins: int
    losses: int
    draws: int
    points_won: int
    #: The rating after the player's last game of the season.
    rating: float
    #: How much the rating moved over the season's games.
    change: float

    @property
    def score(self) -> float:
        return self.wins + self.draws / 2
