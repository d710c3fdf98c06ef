"""Tournaments without Discord: create an event, register, start it, pair each round exactly
once, start each match's game, feed game results back, forfeits, drops and standings.

The formats themselves (who meets whom, standings and tiebreaks) are the pure functions of
:mod:`league.tournaments`; storage pairs a round in one transaction guarded by the round
number (:meth:`storage.Storage.pair_round`), so a round is paired once whoever asks (the last
game's finish, the sweep of another process, a restart). The front end posts what a pairing
is owed (its thread, the players' pings) from :meth:`Tournaments.owed` and reports it done.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from app.errors import Refusal
from app.faults import kill_point
from app.table import GameTable, Outcome
from engine import VARIANTS, get_variant
from league.tournaments import (
    ROUND_ROBIN_MAX_PLAYERS,
    Entrant,
    Format,
    Pairing,
    Result,
    Standing,
    is_finished,
    pair_arena,
    pair_round,
    rounds_for,
    standings,
    tiebreak_names,
)
from render.standings import BracketMatch, StandingRow, render_bracket, render_standings
from storage import (
    ChannelBusyError,
    ConflictError,
    DatabaseGoneError,
    Game,
    NewPairing,
    Shards,
    Storage,
    Tournament,
    TournamentEntrant,
    TournamentPairing,
)
from storage.models import MAX_TOURNAMENT_NAME

__all__ = [
    "Advanced",
    "Game",
    "Tournament",
    "TournamentPairing",
    "Tournaments",
]

log = logging.getLogger(__name__)
Clock = Callable[[], float]

#: A round's time when none is given: a day.
DEFAULT_MINUTES = 24 * 60
#: An arena's length when none is given.
DEFAULT_ARENA_MINUTES = 60
MAX_PLAYERS = 1024
#: Tournaments /tournament list shows.
LIST_SIZE = 15
#: How long a process may take to post an announcement or a match it claimed (another process
#: of the same shard takes over after that, looking in the channel first).
CLAIM_SECONDS = 30.0


# --- refusals ---------------------------------------------------------------------------------


class UnknownTournament(Refusal):
    def __init__(self, asked: str | None = None) -> None:
        if asked:
            shown = asked if len(asked) <= 40 else asked[:40] + "..."
            super().__init__(
                f"There is no tournament `{shown}` in this server. See /tournament list."
            )
        else:
            super().__init__(
                "There is no open or running tournament in this server. "
                "Name one with the `tournament` option; /tournament list shows them."
            )


class SeveralTournaments(Refusal):
    def __init__(self, names: Sequence[str]) -> None:
        listed = ", ".join(f"`{n}`" for n in names[:5])
        super().__init__(f"Several tournaments are on ({listed}): name one with `tournament`.")


class NotAnOrganiser(Refusal):
    def __init__(self) -> None:
        super().__init__(
            "Only members with Manage Server or the tournament organiser role (/settings) can "
            "do this."
        )


class AlreadyJoined(Refusal):
    def __init__(self, name: str) -> None:
        super().__init__(f"You are already registered for **{name}**.")


class NotJoined(Refusal):
    def __init__(self, name: str) -> None:
        super().__init__(f"You are not registered for **{name}**.")


class EventFull(Refusal):
    def __init__(self, name: str, limit: int | None) -> None:
        super().__init__(f"**{name}** is full ({limit} players).")


class RegistrationClosed(Refusal):
    def __init__(self, name: str) -> None:
        super().__init__(f"Registration for **{name}** is closed.")


class NotEnoughPlayers(Refusal):
    def __init__(self, name: str, players: int) -> None:
        super().__init__(
            f"**{name}** has {players} player{'s' if players != 1 else ''}: a tournament needs "
            "at least two."
        )


class TooManyForRoundRobin(Refusal):
    def __init__(self, players: int) -> None:
        super().__init__(
            f"A round robin takes at most {ROUND_ROBIN_MAX_PLAYERS} players; this one has "
            f"{players}. Use a Swiss instead."
        )


class NotRunning(Refusal):
    def __init__(self, name: str, state: str) -> None:
        super().__init__(f"**{name}** is not running (it is {state}).")


class AlreadyOver(Refusal):
    def __init__(self, name: str) -> None:
        super().__init__(f"**{name}** is already over.")


class NotPlaying(Refusal):
    def __init__(self, name: str) -> None:
        super().__init__(f"You are not playing in **{name}** (or have dropped out already).")


class BadStartTime(Refusal):
    def __init__(self, text: str) -> None:
        shown = text if len(text) <= 40 else text[:40] + "..."
        super().__init__(
            f"`{shown}` is not a start time: give minutes from now (e.g. `90`) or a UTC time "
            "`YYYY-MM-DD HH:MM`, in the future."
        )


class BadName(Refusal):
    def __init__(self) -> None:
        super().__init__(f"A tournament name is 1 to {MAX_TOURNAMENT_NAME} characters.")


class RoundsNotForFormat(Refusal):
    def __init__(self, fmt: str) -> None:
        super().__init__(
            f"`rounds` is for Swiss events; a {fmt} event's rounds follow from its players."
        )


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Advanced:
    """What moving a tournament on did: a new round paired, or the event finished."""

    tournament: Tournament
    paired: list[TournamentPairing]
    finished: bool = False
    #: The round ``paired`` is (None: the event's current round).
    round: int | None = None

    @property
    def round_number(self) -> int:
        return self.tournament.current_round if self.round is None else self.round


@dataclass(frozen=True)
class StandingsView:
    tournament: Tournament
    rows: list[Standing]
    tiebreaks: tuple[str, ...]
    pairings: list[TournamentPairing]


def parse_start(text: str | None, now: float) -> float | None:
    """``starts``: minutes from now, or a UTC time ``YYYY-MM-DD HH:MM``."""
    if text is None or not text.strip():
        return None
    text = text.strip()
    if re.fullmatch(r"[0-9]{1,6}", text):
        return now + int(text) * 60
    try:
        when = dt.datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=dt.UTC)
    except ValueError:
        raise BadStartTime(text) from None
    if when.timestamp() <= now:
        raise BadStartTime(text)
    return when.timestamp()


def to_result(pairing: TournamentPairing) -> Result:
    return Result(
        round=pairing.round,
        first=pairing.first_id,
        second=pairing.second_id,
        winner=pairing.winner_id,
        first_points=pairing.first_points,
        second_points=pairing.second_points,
        forfeit=pairing.forfeit,
        sequence=pairing.sequence,
    )


def to_entrants(entrants: Sequence[TournamentEntrant]) -> list[Entrant]:
    return [Entrant(e.user_id, e.rating, e.joined_order) for e in entrants]


def format_name(fmt: str) -> str:
    return {"swiss": "Swiss", "knockout": "knockout", "round-robin": "round robin"}.get(
        fmt, "arena"
    )


class Tournaments:
    """The tournament use cases of one bot process."""

    def __init__(self, db: Storage, table: GameTable, clock: Clock) -> None:
        self.db = db
        self.table = table
        self.clock = clock
        #: Set when a game finishes: a round may be complete (the front end's sweep waits on it).
        self.changed = asyncio.Event()
        table.finish_listeners.append(lambda game: self.changed.set())

    # --- who may organise -------------------------------------------------------------------

    async def check_organiser(
        self, guild_id: int, *, may_manage: bool, role_ids: Sequence[int]
    ) -> None:
        if may_manage:
            return
        role = (await self.db.get_guild_settings(guild_id)).organiser_role_id
        if role is None or role not in role_ids:
            raise NotAnOrganiser()

    # --- finding an event -------------------------------------------------------------------

    async def recent(self, guild_id: int) -> list[Tournament]:
        """Open and running events first, then the most recent."""
        return await self.db.list_tournaments(guild_id, limit=LIST_SIZE)

    async def find(self, guild_id: int, asked: str | None) -> Tournament:
        """The event ``asked`` for (its number, ``#12``, or its name, any case); None: the only
        open or running event of the server (none: the most recent one)."""
        if asked is not None and asked.strip():
            text = asked.strip().lstrip("#")
            if text.isdigit() and len(text) <= 18:
                found = await self.db.get_tournament(int(text))
                if found is not None and found.guild_id == guild_id:
                    return found
            named = [
                t
                for t in await self.db.list_tournaments(guild_id, limit=1000)
                if t.name.lower() == text.lower()
            ]
            if named:
                return named[0]  # the live one, or the most recent
            raise UnknownTournament(asked)
        recent = await self.db.list_tournaments(guild_id, limit=1000)
        live = [t for t in recent if t.state in ("registration", "running")]
        if not live:
            if recent:
                return recent[0]  # the most recent event (e.g. its final standings)
            raise UnknownTournament()
        if len(live) > 1:
            raise SeveralTournaments([t.name for t in live])
        return live[0]

    async def get(self, tournament_id: int) -> Tournament | None:
        return await self.db.get_tournament(tournament_id)

    # --- registration -----------------------------------------------------------------------

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        organiser_id: int,
        may_manage: bool,
        role_ids: Sequence[int],
        fmt: str,
        variant: str,
        length: int,
        rounds: int | None = None,
        minutes: int | None = None,
        starts: str | None = None,
        rated: bool = True,
        max_players: int | None = None,
        name: str | None = None,
    ) -> Tournament:
        await self.check_organiser(guild_id, may_manage=may_manage, role_ids=role_ids)
        form = Format(fmt)
        if rounds is not None and form is not Format.SWISS:
            raise RoundsNotForFormat(format_name(fmt))
        now = self.clock()
        starts_at = parse_start(starts, now)
        if name is None or not name.strip():
            name = f"{get_variant(variant).name} {format_name(fmt)}"
        name = " ".join(name.split())
        if not 1 <= len(name) <= MAX_TOURNAMENT_NAME:
            raise BadName()
        if minutes is None:
            minutes = DEFAULT_ARENA_MINUTES if form is Format.ARENA else DEFAULT_MINUTES
        if form is Format.ROUND_ROBIN:
            max_players = min(max_players or ROUND_ROBIN_MAX_PLAYERS, ROUND_ROBIN_MAX_PLAYERS)
        tournament = await self.db.create_tournament(
            guild_id,
            channel_id,
            organiser_id,
            name=name,
            format=fmt,
            variant=variant,
            now=now,
            match_length=length,
            rounds=rounds,
            minutes=minutes,
            starts_at=starts_at,
            rated=rated,
            max_players=max_players,
        )
        log.info("tournament %s (%s) created by %s", tournament.id, fmt, organiser_id)
        return tournament

    async def signup_posted(self, tournament: Tournament, message_id: int) -> None:
        await self.db.set_signup_message(tournament.id, message_id)

    async def join(self, tournament: Tournament, user_id: int) -> int:
        """Register ``user_id``; returns how many players are registered now."""
        outcome = await self.db.join_tournament(tournament.id, user_id, now=self.clock())
        if outcome == "already":
            raise AlreadyJoined(tournament.name)
        if outcome == "full":
            raise EventFull(tournament.name, tournament.max_players)
        if outcome == "closed":
            raise RegistrationClosed(tournament.name)
        return len(await self.db.tournament_entrants(tournament.id))

    async def leave(self, tournament: Tournament, user_id: int) -> int:
        if tournament.state != "registration":
            raise RegistrationClosed(tournament.name)
        if not await self.db.leave_tournament(tournament.id, user_id):
            fresh = await self.db.get_tournament(tournament.id)
            if fresh is not None and fresh.state != "registration":
                raise RegistrationClosed(tournament.name)
            raise NotJoined(tournament.name)
        return len(await self.db.tournament_entrants(tournament.id))

    async def entrants(self, tournament: Tournament) -> list[TournamentEntrant]:
        return await self.db.tournament_entrants(tournament.id)

    # --- rounds -----------------------------------------------------------------------------

    async def start(
        self,
        tournament: Tournament,
        *,
        may_manage: bool,
        role_ids: Sequence[int],
        user_id: int,
    ) -> Advanced:
        """Close registration and pair round 1 (by an organiser, or the event's own)."""
        if user_id != tournament.organiser_id:
            await self.check_organiser(
                tournament.guild_id, may_manage=may_manage, role_ids=role_ids
            )
        if tournament.state != "registration":
            raise RegistrationClosed(tournament.name)
        advanced = await self._start(tournament)
        if advanced is None:
            raise RegistrationClosed(tournament.name)  # another start won the race
        return advanced

    async def _start(self, tournament: Tournament) -> Advanced | None:
        entrants = await self.db.tournament_entrants(tournament.id)
        if len(entrants) < 2:
            raise NotEnoughPlayers(tournament.name, len(entrants))
        form = Format(tournament.format)
        if form is Format.ROUND_ROBIN and len(entrants) > ROUND_ROBIN_MAX_PLAYERS:
            raise TooManyForRoundRobin(len(entrants))
        seeds = []
        for entrant in entrants:
            stats = await self.db.get_player_stats(
                tournament.guild_id, entrant.user_id, tournament.variant
            )
            seeds.append((entrant.user_id, 1500.0 if stats is None else stats.rating))
        ratings = dict(seeds)
        seeded = [Entrant(e.user_id, ratings[e.user_id], e.joined_order) for e in entrants]
        rounds = rounds_for(form, len(entrants), tournament.rounds) or None
        pairings = pair_round(form, seeded, [], 1)
        stored = await self.db.pair_round(
            tournament.id,
            0,
            [NewPairing(p.table, p.first, p.second) for p in pairings],
            now=self.clock(),
            rounds=rounds,
            seeds=seeds,
        )
        if stored is None:
            return None
        kill_point("tournament_paired")
        fresh = await self.db.get_tournament(tournament.id)
        assert fresh is not None
        log.info("tournament %s started: %d players", tournament.id, len(entrants))
        return Advanced(fresh, stored)

    async def advance(self, tournament_id: int) -> Advanced | None:
        """Pair the next round if every match of the current one is over (arena: pair the
        waiting players), or finish the event; None when there is nothing to do yet (or
        another process did it first)."""
        tournament = await self.db.get_tournament(tournament_id)
        if tournament is None or tournament.state != "running":
            return None
        entrants_rows = await self.db.tournament_entrants(tournament_id)
        entrants = to_entrants(entrants_rows)
        withdrawn = frozenset(e.user_id for e in entrants_rows if e.withdrawn)
        pairings = await self.db.tournament_pairings(tournament_id)
        results = [to_result(p) for p in pairings if p.is_done]
        form = Format(tournament.format)
        now = self.clock()
        current = tournament.current_round
        if form is Format.ARENA:
            busy = {
                player
                for p in pairings
                if not p.is_done
                for player in (p.first_id, p.second_id)
                if player is not None
            }
            started = tournament.started_at or now
            if now >= started + tournament.minutes * 60 or is_finished(
                form, entrants, results, 0, withdrawn
            ):
                if busy:
                    return None  # the matches in play still count
                return await self._finish(tournament)
            waiting = [e.player_id for e in entrants if e.player_id not in busy | withdrawn]
            if len(waiting) < 2:
                return None
            new = [p for p in pair_arena(waiting, entrants, results, current + 1) if p.second]
            if not new:
                return None
            return await self._store_round(tournament, new)
        if any(not p.is_done for p in pairings if p.round == current):
            return None
        rounds = tournament.rounds or 0
        if is_finished(form, entrants, results, rounds, withdrawn) or (
            rounds and current >= rounds
        ):
            return await self._finish(tournament)
        new = pair_round(form, entrants, results, current + 1, withdrawn)
        if not new:
            return await self._finish(tournament)
        return await self._store_round(tournament, new)

    async def _store_round(self, tournament: Tournament, new: Sequence[Pairing]) -> Advanced | None:
        stored = await self.db.pair_round(
            tournament.id,
            tournament.current_round,
            [NewPairing(p.table, p.first, p.second) for p in new],
            now=self.clock(),
        )
        if stored is None:
            return None
        kill_point("tournament_paired")
        fresh = await self.db.get_tournament(tournament.id)
        assert fresh is not None
        log.info("tournament %s: round %d paired", tournament.id, fresh.current_round)
        return Advanced(fresh, stored)

    async def _finish(self, tournament: Tournament) -> Advanced | None:
        if not await self.db.finish_tournament(
            tournament.id, tournament.current_round, now=self.clock()
        ):
            return None
        kill_point("tournament_paired")
        fresh = await self.db.get_tournament(tournament.id)
        assert fresh is not None
        log.info("tournament %s finished", tournament.id)
        return Advanced(fresh, [], finished=True)

    # --- matches ----------------------------------------------------------------------------

    async def owed(self, shards: Shards | None) -> list[tuple[Tournament, TournamentPairing]]:
        """Matches whose thread and pings are not out yet (in ``shards``' servers)."""
        try:
            pairings = await self.db.owed_pairings(shards=shards)
        except DatabaseGoneError:
            return []
        found: dict[int, Tournament | None] = {}
        owed = []
        for pairing in pairings:
            if pairing.tournament_id not in found:
                found[pairing.tournament_id] = await self.db.get_tournament(pairing.tournament_id)
            tournament = found[pairing.tournament_id]
            if tournament is not None:
                owed.append((tournament, pairing))
        return owed

    async def start_match(
        self,
        tournament: Tournament,
        pairing: TournamentPairing,
        names: tuple[str, str],
        thread_id: int | None,
    ) -> Outcome | None:
        """Start the match's game in its thread (exactly once: None if it has a game already).
        Without a thread there is no game: the match waits (and is forfeited when its time is
        up)."""
        assert pairing.second_id is not None
        if thread_id is None:
            return None
        async with self.table.lock(thread_id):
            try:
                return await self.table.start_match(
                    guild_id=tournament.guild_id,
                    thread_id=thread_id,
                    parent_channel_id=tournament.channel_id,
                    variant=tournament.variant,
                    match_length=tournament.match_length,
                    players=(pairing.first_id, pairing.second_id),
                    names=names,
                    rated=tournament.rated,
                    pairing_id=pairing.id,
                )
            except (ConflictError, ChannelBusyError):
                return None  # started already (by a restart, another process)

    async def match_posted(self, pairing: TournamentPairing, thread_id: int | None) -> None:
        await self.db.pairing_posted(pairing.id, thread_id)

    async def claim_match(self, pairing: TournamentPairing) -> int:
        """Whether this process posts the match now: of several processes running the same
        shard (a rolling restart), one at a time (see :data:`CLAIM_SECONDS`). 0: not now;
        else which attempt this is (from 2 on, look for the post already out)."""
        now = self.clock()
        return await self.db.claim_pairing_post(pairing.id, now=now, until=now + CLAIM_SECONDS)

    async def release_match(self, pairing: TournamentPairing) -> None:
        await self.db.release_pairing_post(pairing.id)

    # --- the sweep --------------------------------------------------------------------------

    async def sweep(self, shards: Shards | None) -> list[Advanced]:
        """Start the events whose time has come, forfeit the matches nobody started in their
        round's time, and move every running event on (in ``shards``' servers)."""
        now = self.clock()
        try:
            live = await self.db.live_tournaments(shards=shards)
            await self.db.forfeit_unstarted(now, shards=shards)
        except DatabaseGoneError:
            return []
        done: list[Advanced] = []
        for tournament in live:
            try:
                if tournament.state == "registration":
                    if tournament.starts_at is None or tournament.starts_at > now:
                        continue
                    try:
                        started = await self._start(tournament)
                    except (NotEnoughPlayers, TooManyForRoundRobin):
                        await self.db.cancel_tournament(tournament.id, now=now)  # end owed
                        fresh = await self.db.get_tournament(tournament.id)
                        if fresh is not None:
                            done.append(Advanced(fresh, [], finished=True))
                        continue
                    if started is not None:
                        done.append(started)
                    continue
                while (advanced := await self.advance(tournament.id)) is not None:
                    done.append(advanced)
                    if advanced.finished or Format(tournament.format) is Format.ARENA:
                        break
            except DatabaseGoneError:
                return done
        return done

    async def owed_announcements(self, shards: Shards | None) -> list[list[Advanced]]:
        """What events (in ``shards``' guilds) owe their channel, each event's in order:
        every round paired and not announced (an arena only its first), then its end;
        recorded by the transaction that did it; :meth:`announced` once each is out. A round
        the event moved past before it was announced (a process that died holding its claim)
        is still announced, with its results."""
        try:
            owed = []
            for t in await self.db.unannounced_tournaments(shards=shards):
                last = 1 if t.format == Format.ARENA.value else t.current_round
                items = [
                    Advanced(t, await self.db.tournament_pairings(t.id, number), round=number)
                    for number in range(t.announced_round + 1, last + 1)
                    if t.state != "cancelled"
                ]
                if t.state != "running":
                    items.append(Advanced(t, [], finished=True))
                owed.append(items)
            return owed
        except DatabaseGoneError:
            return []

    async def claim_announcement(self, advanced: Advanced) -> int:
        """Whether this process posts the announcement now (see :meth:`claim_match`)."""
        now = self.clock()
        t = advanced.tournament
        return await self.db.claim_announcement(
            t.id, advanced.round_number, end=advanced.finished, now=now, until=now + CLAIM_SECONDS
        )

    async def release_announcement(self, advanced: Advanced) -> None:
        await self.db.release_announcement(advanced.tournament.id)

    async def announced(self, advanced: Advanced) -> None:
        t = advanced.tournament
        await self.db.tournament_announced(t.id, advanced.round_number, end=advanced.finished)

    # --- views and ends ---------------------------------------------------------------------

    async def standings(self, tournament: Tournament) -> StandingsView:
        entrants_rows = await self.db.tournament_entrants(tournament.id)
        withdrawn = frozenset(e.user_id for e in entrants_rows if e.withdrawn)
        pairings = await self.db.tournament_pairings(tournament.id)
        form = Format(tournament.format)
        rows = standings(
            form,
            to_entrants(entrants_rows),
            [to_result(p) for p in pairings if p.is_done],
            withdrawn,
        )
        return StandingsView(tournament, rows, tiebreak_names(form), pairings)

    async def picture(self, view: StandingsView, names: Mapping[int, str]) -> bytes:
        """The standings as a PNG (a knockout: its bracket), drawn off the event loop."""
        t = view.tournament

        def name(user_id: int | None) -> str | None:
            return None if user_id is None else names.get(user_id, f"player {user_id}")

        subtitle = f"{format_name(t.format)} · {variant_label(t.variant)} · {t.state}"
        if t.format == "knockout" and view.pairings:
            count = max(t.rounds or 1, t.current_round)
            rounds: list[list[BracketMatch]] = []
            for number in range(1, count + 1):
                # Tables are numbered in bracket order; a table of two empty slots has no
                # pairing and stays an empty box.
                shown = [BracketMatch(None, None)] * 2 ** (count - number)
                for p in (p for p in view.pairings if p.round == number):
                    won = None
                    if p.winner_id is not None:
                        won = 0 if p.winner_id == p.first_id else 1
                    score = f"{p.first_points}-{p.second_points}" if p.state == "finished" else ""
                    match = BracketMatch(name(p.first_id), name(p.second_id), won, score)
                    if p.table_no <= len(shown):
                        shown[p.table_no - 1] = match
                rounds.append(shown)
            champion = name(view.rows[0].player_id) if t.state == "finished" else None
            return await self.table.draw(partial(render_bracket, t.name, rounds, champion))
        rows = [
            StandingRow(
                r.rank,
                name(r.player_id) or "",
                r.score,
                r.tiebreaks,
                "withdrawn" if r.withdrawn else "",
            )
            for r in view.rows
        ]
        return await self.table.draw(
            partial(render_standings, t.name, rows, view.tiebreaks, subtitle)
        )

    async def pairings(
        self, tournament: Tournament, round_number: int | None = None
    ) -> list[TournamentPairing]:
        if round_number is None:
            round_number = tournament.current_round
        return await self.db.tournament_pairings(tournament.id, round_number)

    async def cancel(
        self,
        tournament: Tournament,
        *,
        may_manage: bool,
        role_ids: Sequence[int],
        user_id: int,
    ) -> list[int]:
        """Cancel the event; returns the threads whose games were aborted."""
        if user_id != tournament.organiser_id:
            await self.check_organiser(
                tournament.guild_id, may_manage=may_manage, role_ids=role_ids
            )
        # The organiser's command says so itself: nothing is owed to the channel.
        threads = await self.db.cancel_tournament(tournament.id, now=self.clock(), announced=True)
        if threads is None:
            raise AlreadyOver(tournament.name)
        log.info("tournament %s cancelled by %s", tournament.id, user_id)
        return threads

    async def drop(self, tournament: Tournament, user_id: int) -> list[TournamentPairing]:
        """The player withdraws: their remaining matches are forfeited to their opponents."""
        if tournament.state == "registration":
            await self.leave(tournament, user_id)
            return []
        if tournament.state != "running":
            raise NotRunning(tournament.name, tournament.state)
        forfeited = await self.db.withdraw_entrant(tournament.id, user_id, now=self.clock())
        if forfeited is None:
            raise NotPlaying(tournament.name)
        self.changed.set()
        return forfeited


def variant_label(variant: str) -> str:
    known = VARIANTS.get(variant)
    return known.name if known is not None else variant
