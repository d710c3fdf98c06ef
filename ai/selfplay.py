"""TD(λ) self-play: the players, the learner, one training game and a seeded match.

Both sides of a training game are the network choosing greedily among all legal plays (their
resulting positions evaluated in one batch); after every decision the weights move towards the
value of the next position (TD(λ) with eligibility traces, Tesauro's TD-Gammon scheme), and at
the end of the game towards the result (win, gammons, points). ``python -m ai.train`` drives it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import numpy as np

from ai.encoding import Encoder
from ai.evaluation import evaluator_for
from ai.learned import LearnedEvaluator
from ai.network import POINTS_SCALE, FloatArray, Network, equity_of, perspective_map
from ai.players import BASELINE, choose_play, level_spec
from ai.search import chain_values
from ai.types import MatchContext
from engine import ChainDice, Dice, Play, Position, Variant, get_variant
from engine.game import GameResult, GameState, ResultKind

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
