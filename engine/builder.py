"""Building a play one step at a time (a click-to-play front end): which single-checker steps
may come next, what the chosen steps have made so far, and the legal play they complete.

A step is offered only if the steps chosen so far plus that step are the start of some way of
playing some legal play (RULES §2.5, §6.2), so the maximal-dice and higher-die rules hold at
every click and no offered step leads to a dead end. ``Play.steps`` keeps one realising path
per play; here every path counts: the dice in any order and any touch-down point (``24/18/13``
through 18 or 19). A path realises a play when it uses as many dice as the play and ends on
its resulting position (RULES §2.6), and a one-die play of a non-double uses the higher die
whenever that die can make a legal play (§2.5.2).

Steps are applied by the variant's own step generator, so the positions shown between clicks
are the engine's. Chosen steps travel in a Discord custom_id as two ASCII characters each
(``encode_steps``/``decode_steps``).
"""

from __future__ import annotations

from typing import NamedTuple

from engine.dice import Dice, Roll
from engine.game import MOVE, GameState
from engine.movegen import legal_plays
from engine.play import HIT, NONE, PIN, TRAP, Play, Step, format_play
from engine.position import BAR, NUM_CHECKERS, OFF, Position
from engine.variants import Variant, get_variant

#: No play has more steps: four of a double, or an Express decision's at most four copies.
MAX_STEPS = 4

_NAMES = ("off", *(str(p) for p in range(1, 25)), "bar")
_MARKS = {NONE: "", HIT: "*", PIN: "^", TRAP: "^"}


class Turn(NamedTuple):
    """One decision to build a play for: X (the mover) to play ``dice`` in ``position``."""

    position: Position  # the mover's frame
    dice: Dice
    plays: tuple[Play, ...]  # the legal plays (engine.movegen), the empty play when stuck
    rules: Variant  # the variant with the game's options


class StepOption(NamedTuple):
    """One step that may be played next."""

    step: Step
    label: str  # the step in notation, as a player types it: 13/7, bar/22*, 20^
    #: Another offered step has the same label and differs only in its die (3/off with the 6
    #: or with the 4): show the die too (``caption``).
    needs_die: bool = False

    @property
    def caption(self) -> str:
        return f"{self.label} ({self.step.die})" if self.needs_die else self.label


class Progress(NamedTuple):
    """What the chosen steps have made: everything a front end shows after a click."""

    chosen: tuple[Step, ...]
    position: Position  # after the chosen steps, the mover's frame (for a preview)
    dice_left: tuple[int, ...]
    options: tuple[StepOption, ...]  # the steps that may come next
    play: Play | None  # the legal play the chosen steps make, if they make one
    text: str  # the chosen steps so far in notation ("" for none)


def turn_of(state: GameState) -> Turn:
    """The decision ``state`` waits for (the mover is X); ValueError outside the MOVE phase."""
    dice = state.current_dice()
    if state.phase != MOVE or dice is None:
        raise ValueError("no play to build: the game is not waiting for a move")
    return Turn(state.position_for(state.mover), dice, tuple(state.legal_plays()), state.rules)


def make_turn(
    position: Position,
    dice: Dice,
    plays: tuple[Play, ...] | list[Play] | None = None,
    rules: Variant | None = None,
) -> Turn:
    """A decision from a position (X to play) and dice; the legal plays are listed if not given."""
    if rules is None:
        rules = get_variant(position.variant)
    if plays is None:
        plays = legal_plays(position, dice, rules)
    return Turn(position, dice, tuple(plays), rules)


def step_label(step: Step) -> str:
    """A step in notation: ``13/7``, ``bar/22*`` (hit), ``15/10^`` (pin or trap), ``6/off``."""
    return _NAMES[step.src] + "/" + _NAMES[step.dst] + _MARKS.get(step.effect, "")


# --- the search ------------------------------------------------------------------------------


class _Search:
    """Which nodes (position, dice left) lie on some path realising a legal play; memoised
    for one call, as a node is reached again through the other orders of its steps."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.numbers: tuple[int, ...] = turn.dice.numbers
        self.targets: dict[tuple[Position, int], Play] = {
            (play.after, len(play.steps)): play for play in turn.plays
        }
        self.longest = max((len(play.steps) for play in turn.plays), default=0)
        self.memo: dict[tuple[Position, tuple[int, ...]], bool] = {}
        # The higher-die rule (§2.5.2) picks among one-die plays by the die, which the
        # resulting position does not show (3/off with the 6 or the 5): a one-die path must
        # then leave the lower die unused.
        self.single_rest: tuple[int, ...] | None = None
        dice = turn.dice
        if isinstance(dice, Roll) and not dice.is_double and self.longest == 1:
            afters = {play.after for play in turn.plays}
            if any(after in afters for _, after in turn.rules.steps(turn.position, dice.high)):
                self.single_rest = (dice.low,)

    def children(
        self, pos: Position, rest: tuple[int, ...]
    ) -> list[tuple[Step, Position, tuple[int, ...]]]:
        if len(self.numbers) - len(rest) >= self.longest or pos.off[0] >= NUM_CHECKERS:
            return []
        out: list[tuple[Step, Position, tuple[int, ...]]] = []
        for i, die in enumerate(rest):
            if die in rest[:i]:
                continue
            left = rest[:i] + rest[i + 1 :]
            for step, after in self.turn.rules.steps(pos, die):
                out.append((step, after, left))
        return out

    def play_at(self, pos: Position, rest: tuple[int, ...]) -> Play | None:
        used = len(self.numbers) - len(rest)
        play = self.targets.get((pos, used))
        if play is None or (used == 1 and self.single_rest not in (None, rest)):
            return None
        return play

    def good(self, pos: Position, rest: tuple[int, ...]) -> bool:
        key = (pos, rest)
        known = self.memo.get(key)
        if known is None:
            known = self.play_at(pos, rest) is not None or any(
                self.good(after, left) for _, after, left in self.children(pos, rest)
            )
            self.memo[key] = known
        return known

    def follow(self, chosen: tuple[Step, ...]) -> tuple[Position, tuple[int, ...]]:
        """The node the chosen steps reach from the start; ValueError unless each step is one
        the engine generates there, with a die still unused, and the node still leads on."""
        pos, rest = self.turn.position, self.numbers
        for n, step in enumerate(chosen, start=1):
            if step.die not in rest:
                raise ValueError(f"step {n} ({step_label(step)}) uses a die that is not left")
            made = self.turn.rules.steps(pos, step.die)
            after = next((after for option, after in made if option == step), None)
            if after is None:
                raise ValueError(f"step {n} ({step_label(step)}) cannot be played there")
            i = rest.index(step.die)
            pos, rest = after, rest[:i] + rest[i + 1 :]
            if not self.good(pos, rest):
                raise ValueError(f"step {n} ({step_label(step)}) leads to no legal play")
        return pos, rest

    def options(self, pos: Position, rest: tuple[int, ...]) -> tuple[StepOption, ...]:
        steps = sorted(
            {step for step, after, left in self.children(pos, rest) if self.good(after, left)},
            key=lambda s: (-s.src, -s.dst, -s.die, s.effect),
        )
        labels = [step_label(step) for step in steps]
        return tuple(
            StepOption(step, label, labels.count(label) > 1)
            for step, label in zip(steps, labels, strict=True)
        )


def _as_turn(turn: Turn | GameState) -> Turn:
    return turn_of(turn) if isinstance(turn, GameState) else turn


def progress(turn: Turn | GameState, chosen: tuple[Step, ...] = ()) -> Progress:
    """Everything about the chosen steps (one search for all of it); ValueError unless they
    are the start of a legal play."""
    turn = _as_turn(turn)
    search = _Search(turn)
    chosen = tuple(chosen)
    pos, rest = search.follow(chosen)
    return Progress(
        chosen,
        pos,
        rest,
        search.options(pos, rest),
        search.play_at(pos, rest),
        format_play(turn.position, pos, chosen),
    )


def next_steps(turn: Turn | GameState, chosen: tuple[Step, ...] = ()) -> tuple[StepOption, ...]:
    """The steps that may follow ``chosen`` (none once no step can: see ``complete``);
    ValueError unless ``chosen`` is the start of a legal play."""
    turn = _as_turn(turn)
    search = _Search(turn)
    return search.options(*search.follow(tuple(chosen)))


def complete(turn: Turn | GameState, chosen: tuple[Step, ...] = ()) -> Play | None:
    """The legal play the chosen steps make, or None (not a whole play, or not legal).

    Its ``text`` is what Confirm submits: ``GameState.play`` reads it back to this play.
    """
    turn = _as_turn(turn)
    search = _Search(turn)
    try:
        pos, rest = search.follow(tuple(chosen))
    except ValueError:
        return None
    return search.play_at(pos, rest)


def position_after(turn: Turn | GameState, chosen: tuple[Step, ...] = ()) -> Position:
    """The position after the chosen steps (mover's frame); ValueError unless they are the
    start of a legal play."""
    turn = _as_turn(turn)
    return _Search(turn).follow(tuple(chosen))[0]


def board_after(state: GameState, chosen: tuple[Step, ...] = ()) -> Position:
    """The board after the chosen steps in seat 0's frame, as ``GameState.board`` is kept
    (what the board picture draws); ValueError as ``position_after``."""
    pos = position_after(state, chosen)
    return pos if state.mover == 0 else pos.flip()


def is_prefix(turn: Turn | GameState, chosen: tuple[Step, ...]) -> bool:
    """Whether the chosen steps are the start (or the whole) of a legal play."""
    try:
        position_after(turn, chosen)
    except ValueError:
        return False
    return True


# --- the custom_id form ----------------------------------------------------------------------

#: A step in two characters: its source (1..25), then its die and effect. The destination
#: follows from them (off when the die reaches past point 1).
_SOURCES = "abcdefghijklmnopqrstuvwxy"
_EFFECTS = (NONE, HIT, PIN, TRAP)
_DIE_EFFECT = "123456ABCDEFGHIJKLMNOPQR"  # six dice for each effect, in _EFFECTS order


def encode_steps(chosen: tuple[Step, ...]) -> str:
    """The steps as a short ASCII string (two characters a step, "" for none).

    Stable: stored custom_ids keep decoding. ValueError for a step no rule can make.
    """
    out: list[str] = []
    for step in chosen:
        if not (1 <= step.src <= BAR and 1 <= step.die <= 6 and step.effect in _EFFECTS):
            raise ValueError(f"cannot encode {step!r}")
        if step.dst != max(step.src - step.die, OFF):
            raise ValueError(f"cannot encode {step!r}: its die does not reach its destination")
        out.append(_SOURCES[step.src - 1])
        out.append(_DIE_EFFECT[_EFFECTS.index(step.effect) * 6 + step.die - 1])
    return "".join(out)


def decode_steps(text: str) -> tuple[Step, ...]:
    """The steps ``encode_steps`` wrote; ValueError for anything else. Whether they can be
    played is ``decode_prefix``'s question."""
    if not isinstance(text, str) or len(text) % 2 or len(text) > 2 * MAX_STEPS:
        raise ValueError("not an encoded step list")
    steps: list[Step] = []
    for i in range(0, len(text), 2):
        src = _SOURCES.find(text[i]) + 1
        code = _DIE_EFFECT.find(text[i + 1])
        if not src or code < 0:
            raise ValueError("not an encoded step list")
        effect, die = _EFFECTS[code // 6], code % 6 + 1
        steps.append(Step(src, max(src - die, OFF), die, effect))
    return tuple(steps)


def decode_prefix(turn: Turn | GameState, text: str) -> tuple[Step, ...]:
    """The encoded steps, checked to be the start of a legal play in ``turn``; ValueError
    otherwise (garbage, or a stale custom_id from another position)."""
    chosen = decode_steps(text)
    position_after(turn, chosen)
    return chosen


__all__ = [
    "MAX_STEPS",
    "Progress",
    "StepOption",
    "Turn",
    "board_after",
    "complete",
    "decode_prefix",
    "decode_steps",
    "encode_steps",
    "is_prefix",
    "make_turn",
    "next_steps",
    "position_after",
    "progress",
    "step_label",
    "turn_of",
]
