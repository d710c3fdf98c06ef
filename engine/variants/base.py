"""The variant base class: every rule that differs between variants is a method here.

Move generation (engine.movegen), notation (engine.notation) and game flow (engine.game) call these
hooks and never test a variant id, so a variant is entirely described by its class.
"""

from __future__ import annotations

import copy
from collections.abc import Collection
from enum import StrEnum
from typing import ClassVar, NamedTuple

from engine.frozen import FrozenValue
from engine.play import HIT, NONE, Step
from engine.position import BAR, NUM_CHECKERS, OFF, Position, X

#: A landing outcome: (new stack at the destination, effect, O checkers sent to O's bar).
Landing = tuple[str, str, int]


class RuleOption(NamedTuple):
    """A rule option: the boolean attribute of the variant it switches on, and what it does
    (shown to players)."""

    flag: str
    about: str


class ResultKind(StrEnum):
    """How a game ended. A variant's ``result`` gives the first six; the game flow adds the
    concessions. Members are their strings (as stored in the state JSON and the database)."""

    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    MOTHER = "mother"  # pin-mother: a pinned mother (§3.3.8)
    TIE = "tie"  # pin-mother: both mothers pinned
    DRAW = "draw"  # a dead position: nobody can move any more
    RESIGN = "resign"
    TIMEOUT = "timeout"  # a win claimed on time
    PASS = "pass"  # the cube was passed (dropped)


class Result(FrozenValue):
    """How a game ended, from the point of view of the position's X (the mover).

    ``winner`` is ``"X"``, ``"O"`` or ``None`` (tie, draw). ``points`` is the base score before
    the cube (classic multiplies by the cube value).
    """

    __slots__ = ("kind", "points", "winner")
    _fields = ("winner", "points", "kind")
    winner: str | None
    points: int
    kind: ResultKind  # single | gammon | backgammon | mother | tie | draw

    def __init__(self, winner: str | None, points: int, kind: ResultKind) -> None:
        self._set(winner=winner, points=points, kind=kind)


class Variant:
    """Rules of one variant. Subclasses override the hooks; instances are stateless singletons."""

    id: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str] = ""
    #: A concise rules card for players (shown by the bot's /rules).
    rules_card: ClassVar[str] = ""
    #: Classic plays the opening dice; the seed variants re-roll (RULES §2.1).
    plays_opening_dice: ClassVar[bool] = False
    #: Later games of a match: the previous winner starts (pin-mother, neverfinishing; the
    #: ``previousWinner`` option elsewhere). Not a ClassVar: an option sets it per instance.
    previous_winner_starts: bool = False
    #: Rule options this variant accepts (RULES names). ``previousWinner`` is RULES'
    #: ``firstPlayer = previousWinner`` (A2).
    options: ClassVar[dict[str, RuleOption]] = {
        "previousWinner": RuleOption(
            "previous_winner_starts", "the winner of a game starts the next one"
        ),
    }
    has_cube: ClassVar[bool] = False
    has_bar: ClassVar[bool] = False
    has_reserve: ClassVar[bool] = False
    #: Express chains (RULES §6).
    chains_doubles: ClassVar[bool] = False
    #: Blocking's rules in counts: with O frozen during X's run, X's moves depend only on how
    #: many free X checkers each point holds, which points O owns (exactly one O checker) and
    #: where X has covered checkers; the Express lookahead then uses its fast exact methods.
    runs_on_counts: ClassVar[bool] = False
    #: Markers a player may write (RULES §7.3 S4).
    markers: ClassVar[frozenset[str]] = frozenset()
    #: Whether landing on an O blot offers a hit-or-trap choice that must be written (S5).
    marker_required_on_blot: ClassVar[bool] = False
    #: Whether a step can leave a lone O checker behind it (NeverFinishing: a trapper leaves),
    #: which a checker from a higher point may then hit: the ordered doubles search also tries
    #: those hits out of order.
    reexposes_blots: ClassVar[bool] = False
    #: Whether ``update_flags`` can change anything (Dutch's unlock); skipped otherwise.
    tracks_unlock: ClassVar[bool] = False
    #: Effect of landing on an O blot written in notation (RULES §7.4.3), or None if impossible.
    blot_effect: ClassVar[str | None] = HIT
    #: What covering a lone O checker is called for players ("traps" in NeverFinishing).
    pin_word: ClassVar[str] = "pins"
    #: The mother rule (pin-mother, §3.3.8): a pinned mother can end the game before anyone
    #: has borne off all fifteen.
    has_mother: ClassVar[bool] = False
    #: Whether a win can be a gammon (statistics show the count even while it is zero).
    scores_gammons: ClassVar[bool] = True
    #: Whether a point can hold checkers of both sides (one covering the other).
    stacks_mix: ClassVar[bool] = False
    #: Standard backgammon, which gnubg's position and match IDs and the .mat format describe.
    has_gnubg_ids: ClassVar[bool] = False
    #: The compiled build's hand-written search for this variant's plain rolls ("classic":
    #: engine/_classic_kernel.c), used by ``legal_plays`` when the build has it; "" for none.
    native_kernel: ClassVar[str] = ""

    @property
    def entry_pile(self) -> str | None:
        """Where X's entries (step source 25) come from: ``"bar"`` or ``"reserve"``, or None
        where the variant has both (Dutch: the bar empties first, so only a position tells).
        A variant with neither (the Pin games) never enters; it says "bar"."""
        if self.has_reserve:
            return None if self.has_bar else "reserve"
        return "bar"

    # --- options -----------------------------------------------------------------------------

    def with_options(self, options: Collection[str]) -> Variant:
        """This variant with rule ``options`` switched on (a new instance; self if none).

        Raises ValueError naming an option this variant does not have.
        """
        chosen = frozenset(options)
        # difference(), not ``-``: frozenset - dict_keys is a set (dict_keys.__rsub__), which
        # compiled code (mypyc, typed frozenset) refuses.
        unknown = sorted(chosen.difference(self.options))
        if unknown:
            offered = ", ".join(sorted(self.options)) or "none"
            raise ValueError(f"{self.name} has no option {unknown[0]!r} (its options: {offered})")
        if not chosen:
            return self
        configured = copy.copy(self)
        for name in chosen:
            setattr(configured, self.options[name].flag, True)
        return configured

    # --- setup -----------------------------------------------------------------------------

    def initial_position(self) -> Position:
        raise NotImplementedError

    # --- points and checkers (RULES §3.x.3, §3.x.4) ------------------------------------------

    def is_open(self, pos: Position, stack: str) -> bool:
        """Whether X may land or touch down on a point holding ``stack``."""
        raise NotImplementedError

    def landings(self, pos: Position, stack: str) -> tuple[Landing, ...]:
        """The outcomes of X landing on an open point holding ``stack``."""
        return ((stack + X, NONE, 0),)

    def is_permanently_blocked(self, stack: str) -> bool:
        """RULES §7.3 S3: blocked for X for the whole of X's play."""
        raise NotImplementedError

    def is_capturable(self, stack: str) -> bool:
        """RULES §7.3 S4: a point where a marker may be written (an O blot, or O under X)."""
        return stack == "O"

    def is_blot(self, stack: str) -> bool:
        """An O blot in the sense of §7.4.3 (a landing there hits/pins/traps)."""
        return stack == "O"

    def valid_stack(self, stack: str) -> bool:
        """Whether the variant can produce this stack (position text validation, §12)."""
        return len(set(stack)) <= 1

    # --- entering (RULES §2.7, §3.x.5) --------------------------------------------------------

    def entry_mode(self, pos: Position) -> tuple[bool, bool]:
        """(entries possible, board moves allowed) for X in ``pos``."""
        return (pos.bar[0] > 0, pos.bar[0] == 0)

    def after_entry(self, pos: Position) -> tuple[tuple[int, int], tuple[int, int]]:
        """(bar, reserve) after X enters one checker: the bar empties first."""
        if pos.bar[0] > 0:
            return (pos.bar[0] - 1, pos.bar[1]), pos.reserve
        return pos.bar, (pos.reserve[0] - 1, pos.reserve[1])

    # --- bearing off (RULES §2.8, §3.x.7) ---------------------------------------------------

    def may_bear_off(self, pos: Position, highest: int) -> bool:
        """Bear-off condition; ``highest`` is X's highest occupied point (0 if none)."""
        return highest <= 6 and pos.bar[0] == 0 and pos.reserve[0] == 0

    # --- flags --------------------------------------------------------------------------------

    def update_flags(self, pos: Position, dst: int) -> tuple[bool, bool]:
        return pos.unlocked

    # --- game end (RULES §2.9, §3.x.8) -------------------------------------------------------

    def result(self, pos: Position) -> Result | None:
        """The result after a completed play by X, or None if the game goes on."""
        if pos.off[0] == NUM_CHECKERS:
            return self.score_win(pos)
        return None

    def mother_may_end(self, pos: Position) -> bool:
        """Whether ``result`` may end the game in ``pos`` although nobody has borne off all
        fifteen (the mother rule, ``has_mother``): a cheap test that lets callers skip
        ``result`` for most positions. Never true without the mother rule."""
        return False

    def score_win(self, pos: Position) -> Result:
        """X has borne off all 15 checkers."""
        raise NotImplementedError

    #: What a game's score counts, and so the unit of its equities: "point" (a game is worth
    #: 1, 2 or 3 points, times the cube) or "pip" (the Pin games score the loser's pips).
    score_unit: ClassVar[str] = "point"

    #: Resignation levels a loser may offer (classic: single, gammon, backgammon; the Pin
    #: games: the loser's pips x1, x2, x3). 1: resigning concedes the game at once.
    resign_levels: ClassVar[int] = 1

    def resignation_points(self, pos: Position, level: int = 1) -> int:
        """Points X wins when O resigns at ``level`` (1..resign_levels) in ``pos``, before the
        cube. The base: a single game's value times the level."""
        return level

    # --- single-die steps (RULES §2.2) -------------------------------------------------------

    def steps_commute(self, pos: Position) -> bool:
        """Whether X's steps with one die value commute in ``pos``: no step can enable a step
        from a higher point, so a doubles search may take sources in non-increasing order
        (gnubg's trick). Variants where a step can unlock hitting override it. (A step that
        re-exposes a blot is handled by the search itself, see ``reexposes_blots``.)
        """
        return True

    def steps(
        self, pos: Position, die: int, max_src: int = BAR, min_src: int = 1
    ) -> list[tuple[Step, Position]]:
        """Every single-die step X can make with ``die`` (from points ``min_src..max_src``),
        with the position it leads to.

        Never mutates ``pos``. In NeverFinishing a landing on a blot yields two steps (hit, trap).
        """
        out: list[tuple[Step, Position]] = []
        pts = pos.points
        if pos.bar[0] == 0 and pos.reserve[0] == 0:
            may_enter, board_allowed = False, True  # nothing to enter: the common case
        else:
            may_enter, board_allowed = self.entry_mode(pos)
        if may_enter and max_src == BAR:
            dst = BAR - die
            stack = pts[dst]
            if self.is_open(pos, stack):
                bar, reserve = self.after_entry(pos)
                for new_stack, effect, hit in self.landings(pos, stack):
                    new_pts = list(pts)
                    new_pts[dst] = new_stack
                    after = Position(
                        pos.variant,
                        tuple(new_pts),
                        (bar[0], bar[1] + hit),
                        reserve,
                        pos.off,
                        pos.unlocked,
                    )
                    out.append((Step(BAR, dst, die, effect), after))
        if not board_allowed:
            return out
        highest = 0
        for p in range(24, 0, -1):
            if X in pts[p]:
                highest = p
                break
        # Hot loop: locals and tuple.__new__ (skipping the named tuple's Python-level
        # constructor) roughly halve the cost of a step.
        new = tuple.__new__
        variant, bar, reserve, off = pos.variant, pos.bar, pos.reserve, pos.off
        unlocked = pos.unlocked
        is_open = self.is_open
        flags = self.update_flags if self.tracks_unlock else None
        bear_off: bool | None = None  # evaluated lazily: most steps never reach off
        for src in range(min(highest, max_src), min_src - 1, -1):
            stack = pts[src]
            if not stack or stack[-1] != X:
                continue
            dst = src - die
            if dst >= 1:
                target = pts[dst]
                if not is_open(pos, target):
                    continue
                if not target or target[-1] == X:
                    # Own or empty point: the common case needs no landing rules.
                    new_pts = list(pts)
                    new_pts[src] = stack[:-1]
                    new_pts[dst] = target + X
                    flag = unlocked if flags is None else flags(pos, dst)
                    after = new(Position, (variant, tuple(new_pts), bar, reserve, off, flag))
                    out.append((new(Step, (src, dst, die, NONE)), after))
                    continue
                for new_stack, effect, hit in self.landings(pos, target):
                    new_pts = list(pts)
                    new_pts[src] = stack[:-1]
                    new_pts[dst] = new_stack
                    flag = unlocked if flags is None else flags(pos, dst)
                    after = new(
                        Position,
                        (variant, tuple(new_pts), (bar[0], bar[1] + hit), reserve, off, flag),
                    )
                    out.append((new(Step, (src, dst, die, effect)), after))
            else:
                if bear_off is None:
                    bear_off = self.may_bear_off(pos, highest)
                if not bear_off or (dst < 0 and src != highest):
                    continue
                new_pts = list(pts)
                new_pts[src] = stack[:-1]
                flag = unlocked if flags is None else flags(pos, OFF)
                after = new(
                    Position, (variant, tuple(new_pts), bar, reserve, (off[0] + 1, off[1]), flag)
                )
                out.append((new(Step, (src, OFF, die, NONE)), after))
        return out

    def can_step(self, pos: Position) -> bool:
        """Whether X has any single-die step for some die value 1..6 (dead-position test)."""
        return any(self.steps(pos, d) for d in range(1, 7))

    def __repr__(self) -> str:
        return f"<variant {self.id}>"
