"""TD(λ) self-play training of a variant's learned evaluation (numpy only).

    python -m ai.train VARIANT [--games N | --minutes M] [--seed S] [--resume] [--dir DIR]

The games are played by the engine's own game flow (``engine.game.GameState``: exact rules,
Express chains included); both sides are the network choosing greedily among all legal plays,
whose resulting positions are evaluated in one batch. After every decision the weights move
towards the value of the next position (TD(λ) with eligibility traces, Tesauro's TD-Gammon
scheme), and at the end of the game towards the result (win, gammons, points).

Checkpoints (weights, game count, the dice generator's state, the learning curve) are written
at game boundaries every ``--checkpoint-every`` games, at the end and on SIGTERM/SIGINT, so
``--resume`` continues exactly where the run stopped: a run of N games then M resumed games
ends with the same weights as one run of N+M games with the same seed. ``--games N`` and
``--minutes M`` bound this run (not the total).

Progress is printed every ``--eval-every`` games: games trained, the greedy network's win rate
and points per game (1-point games, as in ``bench/ai.py``) against the benchmark's greedy
baseline (the hand evaluation at 0 ply) over a small fixed sample (``--eval-games`` games, the
same seeded dice each time, seats alternating), and games per minute of training. Each line is also
added to the learning curve in the checkpoint metadata.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

from ai.encoding import ENCODING_VERSION, ENCODINGS, Encoder, grows_into
from ai.evaluation import evaluator_for
from ai.learned import WEIGHTS_DIR, LearnedEvaluator
from ai.network import HEADS, POINTS_SCALE, FloatArray, Network, equity_of, perspective_map
from ai.players import BASELINE, choose_play, level_spec
from ai.search import chain_values
from ai.types import MatchContext
from engine import ChainDice, Dice, Play, Position, Variant, get_variant
from engine.game import GameResult, GameState, ResultKind

VARIANTS = tuple(HEADS)
DEFAULT_DIR = Path("data/train")
#: Checkpoints committed to the repository, resumed from when ``--dir`` has none.
COMMITTED_DIR = Path(__file__).resolve().parent / "checkpoints"
HIDDEN = 80
ALPHA = 0.1
LAMBDA = 0.7
#: Seeds of the fixed evaluation sample (distinct from any training seed in use).
EVAL_SEED = 1_000_003
ONE_POINT = MatchContext(length=1)

#: An opponent for the evaluation games: (rules, position with X to play, dice, legal plays,
#: rng) -> the chosen play.
Opponent = Callable[[Variant, Position, Dice, Sequence[Play], random.Random], Play]


# --- players -------------------------------------------------------------------------------


class NetPlayer:
    """Greedy (0-ply) play on a network: the play whose result is best for the mover."""

    def __init__(
        self, net: Network, encoder: Encoder, objective: str = "points", chain_lookahead: int = 0
    ) -> None:
        self.net = net
        self.encoder = encoder
        #: "points": expected points (money play); "win": the winning chance (1-point games).
        self.objective = objective
        #: Express: the best this many plays (at 0 ply) of a chain decision are valued where the
        #: chain ends, both sides playing the rest of it greedily (0: valued as they stand).
        self.chain_lookahead = chain_lookahead
        self._learned: LearnedEvaluator | None = None

    def scores(self, plays: Sequence[Play]) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(inputs, hidden, outputs) of the plays' results, from the opponent's side."""
        return self.scores_of([p.after for p in plays])

    def scores_of(self, positions: Sequence[Position]) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(inputs, hidden, outputs) of positions with O on roll, from O's side."""
        x = self.encoder.encode(positions, opponent_on_roll=True)
        h, out = self.net.forward(x)
        return x, h, out

    def opponent_values(self, out: FloatArray) -> FloatArray:
        """What the objective makes of each result for the opponent, who is on roll next."""
        if self.objective == "win":
            return out[:, 0]
        return equity_of(self.net.variant, self.net.heads, out)

    def pick(self, out: FloatArray) -> int:
        """The best play's index: the lowest value for the opponent."""
        return int(np.argmin(self.opponent_values(out)))

    def choose(
        self, rules: Variant, pos: Position, dice: Dice, plays: Sequence[Play], rng: random.Random
    ) -> Play:
        if len(plays) == 1:
            return plays[0]
        return plays[self.pick_for(rules, dice, plays, self.scores(plays)[2])]

    def pick_for(
        self, rules: Variant, dice: Dice | None, plays: Sequence[Play], out: FloatArray
    ) -> int:
        """The best play's index, an Express chain decision's judged where the chain ends.

        A mid-chain position is followed by more of the same chain, not by the opponent's roll
        that its 0-ply value assumes; the chain itself has no dice, so its end is exact given
        how both sides play the rest (greedily, as in ``ai.search.chain_outcome``)."""
        if self.chain_lookahead <= 0 or not isinstance(dice, ChainDice) or len(plays) < 2:
            return self.pick(out)
        value = self.opponent_values(out)
        close = [int(i) for i in np.argsort(value, kind="stable")[: self.chain_lookahead]]
        if self._learned is None:
            # Shares the weights being trained (the arrays are updated in place).
            self._learned = LearnedEvaluator(self.net)
        # Valued with O on roll, as if X rolled the chain: the roller's opponent rolls after it
        # (RULES §6.4); a chain X took over is the rarer case, judged the same way.
        ends = chain_values(rules, plays, close, dice, None, None, len(close), self._learned)
        column = 1 if self.objective == "win" else 0
        return max(close, key=lambda i: ends[i][column])


def benchmark_player(net: Network) -> Opponent:
    """The network as the strongest level's 0-ply would play it in a 1-point game."""
    learned = LearnedEvaluator(net)

    def choose(
        rules: Variant, pos: Position, dice: Dice, plays: Sequence[Play], rng: random.Random
    ) -> Play:
        equity, _ = learned.evaluate(rules, [p.after for p in plays], ONE_POINT)
        return plays[int(np.argmax(equity))]

    return choose


def greedy_baseline(
    rules: Variant, pos: Position, dice: Dice, plays: Sequence[Play], rng: random.Random
) -> Play:
    """The benchmark's baseline: the greedy (0-ply) player on the hand evaluation."""
    spec = level_spec(BASELINE)
    if rules.has_cube or spec.search or spec.noise or spec.learned:
        return choose_play(rules, pos, dice, level=BASELINE, rng=rng, match=ONE_POINT)
    # What choose_play does at such a level (the first of the best plays by 0-ply equity), on
    # the plays the game has already listed: it would list them twice more and value the
    # stake of the position for noise and search it does not use.
    equity, _ = evaluator_for(rules.id).evaluate(rules, [p.after for p in plays], ONE_POINT)
    return plays[int(np.argmax(equity))]


BASELINE_NAME = f"hand-{BASELINE}"


# --- TD(λ) ---------------------------------------------------------------------------------


class Learner:
    """Online TD(λ) on one network; the traces are kept in seat 0's frame.

    Done cheaply, with the plain scheme's result up to float rounding (a test compares):

    * The network's four weight arrays become views into one parameter vector, and the four
      eligibility traces are one (heads, parameters) array in the same order, so an update is
      one matrix-vector product and one addition.
    * The traces are stored scaled: the true trace is ``self._scale * E``. Decaying them by λ
      is one multiplication of the scale instead of a pass over the largest array (heads x
      hidden x inputs); a new gradient is added as ``g / scale``; the array is renormalised
      when the scale gets small (so it stays far from overflow).
    * A gradient touches only the weights of the inputs that are not 0 (most are: empty
      points' thermometers), stored input by input (w1 transposed) so that each is a row.
    * Each head's output weights and bias are adjacent (the bias acts as a hidden unit that is
      always 1), so their gradient is one outer product.
    """

    #: Renormalise the traces when their scale falls below this (λ = 0.7: every ~77 steps).
    RESCALE_BELOW = 2.0**-40
    #: Trace entries smaller than this are dropped at a renormalisation.
    NEGLIGIBLE = 2.0**-100

    def __init__(self, net: Network, alpha: float, lam: float) -> None:
        self.net = net
        self.alpha = float(alpha)
        self.lam = float(lam)
        self.perm, self.sign, self.offset = perspective_map(net.heads)
        self._rows = np.arange(len(net.heads))
        self.prev: FloatArray | None = None
        self._scale = 1.0
        self._params: FloatArray = np.zeros(0, np.float32)
        self._views: tuple[FloatArray, ...] = ()
        self._trace: FloatArray = np.zeros((0, 0), np.float32)
        self._e_b1 = self._e_out = self._trace
        self._e_w1t: FloatArray = np.zeros((0, 0, 0), np.float32)
        self.start_game()

    def _adopt(self) -> None:
        """Move the network's weights into one parameter vector (the arrays become views)."""
        net = self.net
        k, h, i = len(net.heads), net.hidden, net.inputs
        o1, o2 = h * i, h * i + h
        out = np.concatenate([net.w2, net.b2[:, None]], axis=1)  # (K, H + 1)
        # The input weights input by input (w1 transposed): a gradient's nonzero inputs are
        # then whole rows of the trace.
        params = np.concatenate([net.w1.T.ravel(), net.b1, out.ravel()]).astype(np.float32)
        out_view = params[o2:].reshape(k, h + 1)
        net.w1, net.b1 = params[:o1].reshape(i, h).T, params[o1:o2]
        net.w2, net.b2 = out_view[:, :h], out_view[:, h]
        self._params = params
        self._views = (net.w1, net.b1, net.w2, net.b2)
        self._trace = np.zeros((k, len(params)), np.float32)
        self._e_w1t = self._trace[:, :o1].reshape(k, i, h)
        self._e_b1 = self._trace[:, o1:o2]
        self._e_out = self._trace[:, o2:].reshape(k, k, h + 1)
        views = (net.w1, net.w2, self._e_w1t, self._e_b1, self._e_out)
        if not all(
            np.shares_memory(v, params if j < 2 else self._trace) for j, v in enumerate(views)
        ):
            raise RuntimeError("a weight or trace array is a copy, not a view")  # cannot happen

    def start_game(self) -> None:
        net = self.net
        current = (net.w1, net.b1, net.w2, net.b2)
        if len(self._views) != 4 or any(
            a is not b for a, b in zip(self._views, current, strict=True)
        ):
            self._adopt()  # a new network, or its arrays were replaced
        else:
            self._trace.fill(0.0)
        self._scale = 1.0
        self.prev = None

    # The traces as the plain scheme holds them (for tests and inspection).
    @property
    def e_w1(self) -> FloatArray:
        return np.asarray(self._scale * self._e_w1t.transpose(0, 2, 1), np.float32)

    @property
    def e_b1(self) -> FloatArray:
        return np.asarray(self._scale * self._e_b1, np.float32)

    @property
    def e_w2(self) -> FloatArray:
        return np.asarray(self._scale * self._e_out[:, :, :-1], np.float32)

    @property
    def e_b2(self) -> FloatArray:
        return np.asarray(self._scale * self._e_out[:, :, -1], np.float32)

    def to_seat0(self, out: FloatArray, roller: int) -> FloatArray:
        if roller == 0:
            return out
        return np.asarray(self.offset + self.sign * out[self.perm], np.float32)

    def step(self, x: FloatArray, h: FloatArray, out: FloatArray, roller: int) -> None:
        """The game reached the position with inputs ``x`` and ``roller`` on roll."""
        v0 = self.to_seat0(out, roller)
        if self.prev is not None:
            self._update(v0 - self.prev)
        self._scale *= self.lam
        if self._scale < self.RESCALE_BELOW:
            trace = self._trace
            trace *= np.float32(self._scale)
            # What has decayed below any weight's rounding goes: subnormal floats would slow
            # every later pass over the trace.
            trace[np.abs(trace) < self.NEGLIGIBLE] = 0.0
            self._scale = 1.0
        # d out_k / d z_k (scaled by 1 / scale); head k of seat 0's value is head perm[k] of
        # the roller's, times sign[k].
        d = out * (1.0 - out) * np.float32(1.0 / self._scale)
        w2 = self.net.w2
        if roller == 1:
            cols = self.perm
            d, w2 = self.sign * d[cols], w2[cols]
        else:
            cols = self._rows
        gh = d[:, None] * w2 * (h * (1.0 - h))  # (K, H): d out / d hidden pre-activations
        nz = np.flatnonzero(x)
        self._e_w1t[:, nz, :] += x[nz][None, :, None] * gh[:, None, :]
        self._e_b1 += gh
        # Head k's output weights and bias (its own row only): d_k * (h, 1).
        self._e_out[self._rows, cols] += d[:, None] * np.append(h, np.float32(1.0))
        self.prev = v0

    def finish(self, target0: FloatArray) -> None:
        if self.prev is not None:
            self._update(target0 - self.prev)
        self.prev = None

    def _update(self, delta: FloatArray) -> None:
        # np.dot: numpy's matmul takes a slow path for a single head's (1,) @ (1, P).
        self._params += np.dot(delta * np.float32(self.alpha * self._scale), self._trace)


def result_targets(heads: tuple[str, ...], result: GameResult) -> FloatArray:
    """The final values of the heads for seat 0."""
    won = result.winner == 0
    lost = result.winner == 1
    double = result.kind in (ResultKind.GAMMON, ResultKind.BACKGAMMON)
    values = {
        "win": 1.0 if won else 0.0 if lost else 0.5,
        "gammon_win": float(won and double),
        "gammon_loss": float(lost and double),
        "bg_win": float(won and result.kind == ResultKind.BACKGAMMON),
        "bg_loss": float(lost and result.kind == ResultKind.BACKGAMMON),
        "points_win": min(result.points / POINTS_SCALE, 1.0) if won else 0.0,
        "points_loss": min(result.points / POINTS_SCALE, 1.0) if lost else 0.0,
    }
    return np.array([values[h] for h in heads], dtype=np.float32)


def self_play_game(player: NetPlayer, learner: Learner, rng: random.Random) -> GameResult:
    """One training game; returns its result (seat 0's view)."""
    state = GameState.new(player.net.variant, ("0", "1"), rng)
    rules = get_variant(player.net.variant)
    learner.start_game()
    while not state.is_over:
        seat = state.mover
        plays = state.legal_plays()
        x, h, out = player.scores(plays)
        i = player.pick_for(rules, state.current_dice(), plays, out) if len(plays) > 1 else 0
        state = state._apply(plays[i], rng, auto=False)
        if state.chain is not None and not state.chain.first:
            # In the middle of an Express chain the next to act is not a player rolling the
            # dice, as every trained position assumes (the network has no input for a pending
            # chain): the chain is one step of the game, learned from where it ends.
            continue
        if state.is_over or state.mover != seat:
            learner.step(x[i], h[i], out[i], 1 - seat)
        else:
            # An Express chain ended in the hands of the roller's opponent, who rolls next
            # (RULES §6.4): the position is valued with him on roll.
            xs, hs, outs = player.scores_of([plays[i].after.flip()])
            learner.step(xs[0], hs[0], outs[0], seat)
    assert state.result is not None
    learner.finish(result_targets(player.net.heads, state.result))
    return state.result


def play_match(
    rules: Variant,
    first: Opponent,
    second: Opponent,
    games: int,
    seed: int,
) -> tuple[float, float]:
    """``first`` against ``second`` over ``games`` seeded games, seats alternating.

    Returns (first's score: wins + half ties, per game; first's net points per game).
    """
    score = points = 0.0
    for g in range(games):
        rng = random.Random(seed + g)
        players = (first, second) if g % 2 == 0 else (second, first)
        state = GameState.new(rules.id, ("a", "b"), rng)
        while not state.is_over:
            seat = state.mover
            plays = state.legal_plays()
            dice = state.current_dice()
            assert dice is not None
            play = (
                plays[0]
                if len(plays) == 1
                else players[seat](rules, state.position_for(seat), dice, plays, rng)
            )
            state = state._apply(play, rng, auto=False)
        result = state.result
        assert result is not None
        me = g % 2
        if result.winner is None:
            score += 0.5
        elif result.winner == me:
            score += 1.0
            points += result.points
        else:
            points -= result.points
    return score / games, points / games


# --- checkpoints ---------------------------------------------------------------------------


@dataclass
class Checkpoint:
    net: Network
    games: int
    rng_state: Any
    curve: list[dict[str, Any]]
    config: dict[str, Any]


def save_checkpoint(ck: Checkpoint, directory: Path) -> Path:
    path = directory / f"{ck.net.variant}.npz"
    ck.net.meta.update(
        {
            "games": ck.games,
            "curve": ck.curve,
            "config": ck.config,
            "rng_state": _rng_to_json(ck.rng_state),
            "saved": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
    )
    ck.net.save(path)
    return path


def load_checkpoint(path: Path, variant: str) -> Checkpoint:
    net = Network.load(path, variant)
    meta = net.meta
    return Checkpoint(
        net,
        int(meta["games"]),
        _rng_from_json(meta["rng_state"]),
        list(meta.get("curve", [])),
        dict(meta["config"]),
    )


def _rng_to_json(state: Any) -> list[Any]:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _rng_from_json(data: list[Any]) -> Any:
    return (data[0], tuple(data[1]), data[2])


# --- shipping ------------------------------------------------------------------------------


#: The settings a resumed run may change, with their command-line options and defaults.
_SETTINGS = {
    "alpha": ("--alpha", ALPHA),
    "hidden": ("--hidden", HIDDEN),
    "encoding_version": ("--encoding", ENCODING_VERSION),
    "chain_lookahead": ("--chain-lookahead", 0),
}


def _record_change(ck: Checkpoint, name: str, old: Any, new: Any) -> None:
    """Note in the config that setting ``name`` went from ``old`` to ``new`` at this game (the
    shipped command replays the run in segments, one per change)."""
    changes: list[dict[str, Any]] = ck.config.setdefault("changes", [])
    if not changes or changes[-1]["games"] != ck.games:
        changes.append({"games": ck.games})
    last = changes[-1]
    last[name] = [last[name][0] if name in last else old, new]
    ck.config[name] = new


def _command(variant: str, ck: Checkpoint) -> str:
    """The training command that reproduces the checkpoint."""
    changes: list[dict[str, Any]] = ck.config.get("changes", [])
    first = changes[0]["games"] if changes else ck.games
    command = f"python -m ai.train {variant} --seed {ck.config['seed']} --games {first}"
    for name, (option, default) in _SETTINGS.items():
        initial = next((c[name][0] for c in changes if name in c), ck.config.get(name, default))
        if initial != default and not (name == "hidden" and "init_from" in ck.config):
            command += f" {option} {initial}"
    base = ck.config.get("init_from")
    if isinstance(base, dict):
        command = (
            f"python -m ai.train {base['variant']} --seed {base['seed']} --games {base['games']} "
            f"--dir D && {command} --init-from D/{base['variant']}.npz"
        )
    # Each change of a setting is a resumed run from the game it happened at.
    ends = [*(c["games"] for c in changes[1:]), ck.games]
    for change, end in zip(changes, ends[: len(changes)], strict=True):
        command += f" && python -m ai.train {variant} --resume --games {end - change['games']}"
        for name, (option, _) in _SETTINGS.items():
            if name in change:
                command += f" {option} {change[name][1]}"
    return command


def known_evaluation(ev: LearnedEvaluator, seed: int = 1) -> dict[str, Any]:
    """A reference evaluation recorded with shipped weights (their test recomputes it): the
    first play (by text) of the first roll of a game with seeded dice."""
    rules = get_variant(ev.variant_id)
    state = GameState.new(ev.variant_id, ("a", "b"), random.Random(seed))
    play = sorted(state.legal_plays(), key=lambda p: p.text)[0]
    outputs = ev.outputs([play.after])[0]
    equity, _ = ev.evaluate(rules, [play.after])
    return {
        "seed": seed,
        "play": play.text,
        "outputs": [round(float(v), 7) for v in outputs],
        "equity": round(float(equity[0]), 6),
    }


def ship(variant: str, source: Path, target: Path, benchmark: dict[str, Any]) -> Path:
    """Copy a checkpoint to the shipped weights with their metadata (without the dice state)."""
    ck = load_checkpoint(source / f"{variant}.npz", variant)
    net = ck.net
    meta = {k: v for k, v in net.meta.items() if k not in ("rng_state", "saved")}
    meta.update(
        {
            "games": ck.games,
            "seed": ck.config["seed"],
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "benchmark": benchmark,
            "check": known_evaluation(LearnedEvaluator(net)),
            "trained_by": _command(variant, ck),
        }
    )
    net.meta = meta
    path = target / f"{variant}.npz"
    net.save(path)
    return path


# --- command line --------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m ai.train", description=__doc__.split("\n\n")[0])
    p.add_argument("variant", choices=VARIANTS)
    bound = p.add_mutually_exclusive_group()
    bound.add_argument("--games", type=int, help="train this many games in this run")
    bound.add_argument("--minutes", type=float, help="train for this many minutes")
    p.add_argument("--seed", type=int, default=1, help="seed of weights and dice (default 1)")
    p.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    p.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="checkpoint directory")
    p.add_argument(
        "--hidden",
        type=int,
        help=f"hidden units (default {HIDDEN}); with --resume, grow the network to this many "
        "(new units start with no weight on the outputs: nothing learned is lost)",
    )
    p.add_argument(
        "--alpha",
        type=float,
        help=f"learning rate (default {ALPHA}); with --resume, the rate from this game on (the "
        "change is recorded, and the shipped command reproduces it)",
    )
    p.add_argument("--lam", type=float, default=LAMBDA)
    p.add_argument(
        "--objective",
        choices=("points", "win"),
        default="points",
        help="what self-play maximises in a new run: expected points (default) or the winning "
        "chance (1-point games; pin-mother, where a mother win is worth only 2 points)",
    )
    p.add_argument(
        "--encoding",
        type=int,
        choices=sorted(ENCODINGS),
        help=f"input encoding of a new network (default {ENCODING_VERSION}); with --resume, "
        "grow the checkpoint's network to it",
    )
    p.add_argument(
        "--init-from",
        type=Path,
        metavar="NPZ",
        help="a new run starts from this network (another variant's, with the same inputs and "
        "heads: blocking-express from blocking) instead of random weights",
    )
    p.add_argument(
        "--chain-lookahead",
        type=int,
        metavar="K",
        help="Express: self-play values the best K plays of a chain decision where the chain "
        "ends (default 0: as they stand); with --resume, from this game on (recorded)",
    )
    p.add_argument("--eval-every", type=int, default=500, help="games between progress lines")
    p.add_argument("--eval-games", type=int, default=100, help="games of the fixed sample")
    p.add_argument("--checkpoint-every", type=int, default=500)
    p.add_argument(
        "--ship",
        action="store_true",
        help="copy the checkpoint to the shipped weights (ai/weights/) instead of training",
    )
    p.add_argument("--benchmark", default="{}", help="--ship: benchmark figures (a JSON object)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if (args.games or 0) < 0 or (args.minutes or 0) < 0:
        print("error: --games/--minutes must not be negative", file=sys.stderr)
        return 2
    if args.ship:
        try:
            figures = json.loads(args.benchmark)
            path = ship(args.variant, args.dir, WEIGHTS_DIR, figures)
        except (OSError, ValueError, KeyError) as exc:
            print(f"error: cannot ship {args.variant}: {exc}", file=sys.stderr)
            return 1
        print(f"shipped {path}", flush=True)
        return 0
    rules = get_variant(args.variant)
    if args.chain_lookahead is not None and (
        args.chain_lookahead < 0 or (args.chain_lookahead and not rules.chains_doubles)
    ):
        print(
            "error: --chain-lookahead takes a count >= 0, and only in a variant with chains",
            file=sys.stderr,
        )
        return 2
    rng = random.Random(args.seed)
    ck: Checkpoint | None = None
    if args.resume:
        for directory in (args.dir, COMMITTED_DIR):
            path = directory / f"{args.variant}.npz"
            if path.exists():
                try:
                    ck = load_checkpoint(path, args.variant)
                except (OSError, ValueError, KeyError, TypeError) as exc:
                    print(f"error: cannot resume from {path}: {exc}", file=sys.stderr)
                    return 1
                print(f"resuming {path} at {ck.games} games", flush=True)
                break
        else:
            print(f"no checkpoint for {args.variant}: starting afresh", flush=True)
    resumed = ck is not None
    if ck is None:
        config = {
            "seed": args.seed,
            "hidden": args.hidden or HIDDEN,
            "alpha": ALPHA if args.alpha is None else args.alpha,
            "lambda": args.lam,
            "objective": args.objective,
            "encoding_version": args.encoding or ENCODING_VERSION,
        }
        width = Encoder(rules, config["encoding_version"]).width
        net = Network.create(
            args.variant, width, config["hidden"], args.seed, config["encoding_version"]
        )
        if args.init_from is not None:
            try:
                base = _initial_network(args.init_from, net)
            except (OSError, ValueError, KeyError) as exc:
                print(f"error: cannot start from {args.init_from}: {exc}", file=sys.stderr)
                return 1
            net.w1, net.b1, net.w2, net.b2 = base.w1, base.b1, base.w2, base.b2
            config["hidden"] = net.meta["hidden"] = net.hidden
            # Enough to redo the run: the starting network's own training and seed.
            config["init_from"] = {
                "variant": base.variant,
                "games": base.meta.get("games"),
                "seed": base.meta.get("config", {}).get("seed", base.meta.get("seed")),
            }
            print(
                f"starting from {args.init_from} ({base.variant}, {base.meta.get('games')} games)",
                flush=True,
            )
        ck = Checkpoint(net, 0, rng.getstate(), [], config)
    elif args.encoding is not None and args.encoding != ck.config["encoding_version"]:
        if not grows_into(int(ck.config["encoding_version"]), args.encoding):
            print(
                f"error: a network of encoding {ck.config['encoding_version']} cannot grow "
                f"into encoding {args.encoding}",
                file=sys.stderr,
            )
            return 2
        # The new inputs come after the old ones with zero weights: nothing learned is lost.
        ck.net.grow_inputs(Encoder(rules, args.encoding).width)
        _record_change(ck, "encoding_version", ck.config["encoding_version"], args.encoding)
        ck.net.meta["encoding_version"] = args.encoding
        print(f"grown to encoding {args.encoding} ({ck.net.inputs} inputs)", flush=True)
    if resumed and args.hidden is not None and args.hidden != ck.net.hidden:
        if args.hidden < ck.net.hidden:
            print("error: a network cannot lose hidden units", file=sys.stderr)
            return 2
        # Seeded by the run's seed and the game count: the command replays the same growth.
        ck.net.grow_hidden(args.hidden, int(ck.config["seed"]) * 1_000_003 + ck.games)
        _record_change(ck, "hidden", ck.config["hidden"], args.hidden)
        ck.net.meta["hidden"] = args.hidden
        print(f"grown to {args.hidden} hidden units", flush=True)
    if args.chain_lookahead is not None and args.chain_lookahead != ck.config.get(
        "chain_lookahead", 0
    ):
        if resumed:
            _record_change(
                ck, "chain_lookahead", ck.config.get("chain_lookahead", 0), args.chain_lookahead
            )
        else:
            ck.config["chain_lookahead"] = args.chain_lookahead
        print(f"chain lookahead {args.chain_lookahead} from game {ck.games}", flush=True)
    if args.alpha is not None and args.alpha != ck.config["alpha"]:
        _record_change(ck, "alpha", ck.config["alpha"], args.alpha)
        print(f"alpha {ck.config['alpha']} from game {ck.games}", flush=True)
    encoder = Encoder(rules, int(ck.config["encoding_version"]))
    if ck.net.inputs != encoder.width:
        print("error: the checkpoint's inputs do not match the encoding", file=sys.stderr)
        return 1
    rng.setstate(ck.rng_state)
    cfg = ck.config
    player = NetPlayer(
        ck.net, encoder, str(cfg.get("objective", "points")), int(cfg.get("chain_lookahead", 0))
    )
    learner = Learner(ck.net, float(cfg["alpha"]), float(cfg["lambda"]))

    stop = False

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    start = time.monotonic()
    deadline = None if args.minutes is None else start + 60.0 * args.minutes
    played = 0
    window_start, window_games = start, 0
    train_seconds = 0.0
    if ck.games == 0 and args.eval_every > 0:
        _report(ck, rules, args.eval_games, 0.0)
    while not stop:
        if args.games is not None and played >= args.games:
            break
        if deadline is not None and time.monotonic() >= deadline:
            break
        t0 = time.monotonic()
        self_play_game(player, learner, rng)
        train_seconds += time.monotonic() - t0
        played += 1
        ck.games += 1
        window_games += 1
        if args.eval_every > 0 and ck.games % args.eval_every == 0:
            speed = 60.0 * window_games / max(train_seconds, 1e-9)
            _report(ck, rules, args.eval_games, speed)
            window_start, window_games, train_seconds = time.monotonic(), 0, 0.0
        if ck.games % args.checkpoint_every == 0:
            ck.rng_state = rng.getstate()
            save_checkpoint(ck, args.dir)
    ck.rng_state = rng.getstate()
    path = save_checkpoint(ck, args.dir)
    elapsed = time.monotonic() - start
    print(
        f"stopped after {played} games in {elapsed / 60:.1f} min; {ck.games} trained in all; "
        f"checkpoint {path}",
        flush=True,
    )
    del window_start
    return 0


def _initial_network(path: Path, fresh: Network) -> Network:
    """The network at ``path`` if it can start ``fresh``'s training (same inputs, heads and
    encoding); ValueError otherwise."""
    base = Network.load(path)
    if base.inputs != fresh.inputs or base.heads != fresh.heads:
        raise ValueError(
            f"{base.variant} has {base.inputs} inputs and heads {list(base.heads)}; "
            f"{fresh.variant} needs {fresh.inputs} and {list(fresh.heads)}"
        )
    if base.meta.get("encoding_version") != fresh.meta.get("encoding_version"):
        raise ValueError("the encodings differ")
    return base


def _report(ck: Checkpoint, rules: Variant, games: int, speed: float) -> None:
    score, ppg = play_match(rules, benchmark_player(ck.net), greedy_baseline, games, EVAL_SEED)
    entry = {
        "games": ck.games,
        "opponent": BASELINE_NAME,
        "sample": games,
        "win_rate": round(score, 4),
        "points_per_game": round(ppg, 3),
        "games_per_minute": round(speed, 1),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    ck.curve.append(entry)
    print(json.dumps(entry), flush=True)


if __name__ == "__main__":
    sys.exit(main())
