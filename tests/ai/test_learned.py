"""The learned evaluations: encoding, network, TD(λ) training, shipped weights and fallback."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ai import learned
from ai.encoding import ENCODINGS, Encoder
from ai.evaluation import evaluator_for
from ai.learned import WEIGHTS_DIR, LearnedEvaluator, evaluator, load_learned, use_learned
from ai.network import HEADS, FloatArray, Network, equity_of, perspective_map
from ai.players import BASELINE, choose_play, rank_plays
from ai.search import chain_outcome
from ai.train import (
    COMMITTED_DIR,
    Learner,
    NetPlayer,
    greedy_baseline,
    load_checkpoint,
    main,
    result_targets,
    self_play_game,
    ship,
)
from ai.types import STRONGEST, MatchContext
from engine import ChainDice, Position, Variant, get_variant, legal_plays
from engine.game import GameResult, GameState

VARIANTS = sorted(HEADS)


def game_positions(variant: str, seed: int, count: int) -> list[Position]:
    """Positions from seeded random games (bar, reserve, covered checkers, bear-off occur)."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        state = GameState.new(variant, ("a", "b"), rng)
        while not state.is_over and len(out) < count:
            play = rng.choice(state.legal_plays())
            out.append(play.after)
            state = state._apply(play, rng, auto=False)
    return out


def _shipped_command(variant: str, source: Path, target: Path) -> str:
    """The training command recorded when ``source``'s checkpoint is shipped to ``target``."""
    shipped = ship(variant, source, target, {})
    command: str = json.loads(shipped.with_suffix(".json").read_text())["trained_by"]
    return command


# --- encoding ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "version"),
    [
        *((v, 1) for v in VARIANTS),
        ("dutch", 2),
        ("pin-mother", 2),
        ("blocking-express", 3),
        ("dutch", 3),
    ],
)
def test_encoding_from_the_opponent_side_is_the_flipped_position(
    variant: str, version: int
) -> None:
    enc = Encoder(variant, version)
    positions = game_positions(variant, 3, 300)
    direct = enc.encode(positions, opponent_on_roll=True)
    flipped = enc.encode([p.flip() for p in positions])
    assert direct.shape == (300, enc.width)
    assert direct.dtype == np.float32
    np.testing.assert_array_equal(direct, flipped)
    assert np.isfinite(direct).all()
    # Different positions mostly encode differently (the encoding is not degenerate).
    assert len({row.tobytes() for row in direct}) > 200


def test_encoding_of_known_positions() -> None:
    enc = Encoder("pin")
    start = get_variant("pin").initial_position()
    row = enc.encode([start])[0]
    g = enc.global_index
    assert row[g("pips_me")] == pytest.approx((24 * 13 + 17 + 15) / 200.0)
    assert row[g("pips_opp")] == pytest.approx((24 * 13 + 17 + 15) / 200.0)
    assert row[g("contact")] == 1.0
    # Point 24 holds 13 free checkers of the roller: thermometer 1,1,1 and (13-3)/2.
    width = enc.point_width
    assert list(row[23 * width : 23 * width + 4]) == [1.0, 1.0, 1.0, 5.0]
    # A pinned opposing checker (O under X) and one of the roller's own covered (X under O).
    pos = Position("pin", ("", "OX", *("",) * 21, "XO", ""))
    row = enc.encode([pos])[0]
    assert row[0 * width + 0] == 1.0  # point 1: a free X on top
    assert row[0 * width + 10] == 1.0  # ... covering an O
    assert row[22 * width + 4] == 1.0  # point 23: a free O on top
    assert row[22 * width + 8] == 1.0  # ... covering an X
    # Blocking: a lone checker owns its point.
    enc_b = Encoder("blocking")
    pos = Position("blocking", ("", "X", "OOX", *("",) * 22), reserve=(12, 13))
    row = enc_b.encode([pos])[0]
    wb = enc_b.point_width
    assert row[0 * wb + 12] == 1.0 and row[1 * wb + 12] == 1.0  # X owns points 1 and 2
    assert row[1 * wb + 10] == 1.0  # two O covered on point 2
    assert row[enc_b.global_index("res_opp")] == pytest.approx(13 / 15)


def _reference_globals(rules: Variant, pos: Position) -> dict[str, float]:
    """The global inputs of one position (X on roll), point by point in plain Python: what the
    vectorised encoder must reproduce."""
    probe = Position(rules.id, ("",) * 25, unlocked=(True, True))
    me = {p: pos.points[p].count("X") for p in range(1, 25)}
    opp = {p: pos.points[p].count("O") for p in range(1, 25)}

    def free(stack: str, colour: str) -> int:
        return len(stack) - len(stack.rstrip(colour)) if stack.endswith(colour) else 0

    swap = str.maketrans("XO", "OX")
    pts = {p: pos.points[p] for p in range(1, 25)}
    blocks_opp = {
        p: bool(s) and not rules.is_open(probe, s.translate(swap)) for p, s in pts.items()
    }
    blocks_me = {p: bool(s) and not rules.is_open(probe, s) for p, s in pts.items()}
    wait_me, wait_opp = pos.bar[0] + pos.reserve[0], pos.bar[1] + pos.reserve[1]
    pips_me = sum(n * p for p, n in me.items()) + 25 * wait_me
    pips_opp = sum(n * (25 - p) for p, n in opp.items()) + 25 * wait_opp
    back_me = 25 if wait_me else max((p for p in me if me[p]), default=0)
    back_opp = 0 if wait_opp else min((p for p in opp if opp[p]), default=25)

    def longest(flags: dict[int, bool]) -> int:
        best = run = 0
        for p in range(1, 25):
            run = run + 1 if flags[p] else 0
            best = max(best, run)
        return best

    blot_me = {p: rules.is_blot(s.translate(swap)) for p, s in pts.items()}
    shooter_opp = {p: free(s, "O") > 0 for p, s in pts.items()}
    blot_opp = {
        p: rules.blot_effect is not None and s == "O" and not blocks_me[p] for p, s in pts.items()
    }
    shooter_me = {p: me[p] > 0 and free(s, "O") == 0 for p, s in pts.items()}
    # The opponent moves up in the roller's numbering: he shoots at p from p-6..p-1, the
    # roller at the opponent's blot on p from p+1..p+6.
    win_me = {p: sum(shooter_opp.get(q, False) for q in range(p - 6, p)) for p in pts}
    win_opp = {p: sum(shooter_me.get(q, False) for q in range(p + 1, p + 7)) for p in pts}
    mother = rules.id == "pin-mother"
    return {
        "bar_me": pos.bar[0] / 4,
        "bar_opp>0": float(pos.bar[1] > 0),
        "res_opp": pos.reserve[1] / 15,
        "off_me": pos.off[0] / 15,
        "unlocked_me": float(pos.unlocked[0]),
        "unlocked_opp": float(pos.unlocked[1]),
        "pips_me": pips_me / 200,
        "pips_opp": pips_opp / 200,
        "pip_lead": (pips_opp - pips_me) / 50,
        "contact": float(back_me > back_opp),
        "home_me": float(back_me <= 6),
        "home_opp": float(back_opp >= 19),
        "mother_me_home": min(me[24], 2) / 2 if mother else 0.0,
        "mother_opp_home": min(opp[1], 2) / 2 if mother else 0.0,
        "prime_me": longest(blocks_opp) / 6,
        "prime_opp": longest(blocks_me) / 6,
        "blocks_ahead_of_opp": sum(blocks_opp[p] and p > back_opp for p in pts) / 6,
        "blocks_ahead_of_me": sum(blocks_me[p] and p < back_me for p in pts) / 6,
        "exposed_me": sum(blot_me[p] and win_me[p] > 0 for p in pts) / 3,
        "shots_on_me": sum(win_me[p] for p in pts if blot_me[p]) / 6,
        "exposed_opp": sum(blot_opp[p] and win_opp[p] > 0 for p in pts) / 3,
        "shots_on_opp": sum(win_opp[p] for p in pts if blot_opp[p]) / 6,
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_encoding_globals_match_a_point_by_point_computation(variant: str) -> None:
    enc = Encoder(variant)
    rules = get_variant(variant)
    positions = game_positions(variant, 11, 400)
    # Both sides on roll: the batch code reads the roller's and the opponent's columns alike.
    batch = [*positions, *(p.flip() for p in positions)]
    rows = enc.encode(batch)
    seen = {name: set() for name in _reference_globals(rules, batch[0])}
    for pos, row in zip(batch, rows, strict=True):
        for name, value in _reference_globals(rules, pos).items():
            assert row[enc.global_index(name)] == pytest.approx(value, abs=1e-6), (name, pos)
            seen[name].add(round(value, 6))
    # The sample exercises the features (not all zero), where the variant has them.
    assert len(seen["pips_me"]) > 20 and len(seen["blocks_ahead_of_opp"]) > 1
    if rules.blot_effect is not None:
        assert len(seen["shots_on_me"]) > 1 and len(seen["shots_on_opp"]) > 1
    if variant == "pin-mother":
        assert len(seen["mother_me_home"]) > 1


@pytest.mark.parametrize("variant", ["blocking", "blocking-express"])
def test_mobility_counts_the_points_a_step_of_each_number_can_start_from(variant: str) -> None:
    """Encoding 3's mobility columns, against the engine's own single steps (both sides)."""
    enc = Encoder(variant, 3)
    rules = get_variant(variant)
    positions = game_positions(variant, 5, 400)
    batch = [*positions, *(p.flip() for p in positions)]
    rows = enc.encode(batch)
    assert enc.width == enc.board_width + 24
    counts_seen: set[int] = set()
    for pos, row in zip(batch, rows, strict=True):
        mobility = row[enc.board_width : enc.own_width]
        for side, seen_by in ((0, pos), (1, pos.flip())):
            for d in range(1, 7):
                count = len({step.src for step, _ in rules.steps(seen_by, d)})
                col = 12 * side + 2 * (d - 1)
                assert mobility[col] == (count == 0), (pos, side, d)
                assert mobility[col + 1] == pytest.approx(min(count, 4) / 4), (pos, side, d)
                counts_seen.add(min(count, 4))
    # The sample has stuck numbers, single movers and crowds alike.
    assert counts_seen == {0, 1, 2, 3, 4}
    # The board part is encoding 1's, unchanged.
    np.testing.assert_array_equal(rows[:, : enc.board_width], Encoder(variant, 1).encode(batch))


# --- network -------------------------------------------------------------------------------


def test_forward_batch_and_equity() -> None:
    net = Network.create("dutch", 30, 7, seed=1)
    x = np.random.default_rng(0).random((5, 30), dtype=np.float32)
    h, out = net.forward(x)
    assert h.shape == (5, 7) and out.shape == (5, 3)
    # One batch call equals row-by-row calls.
    for i in range(5):
        np.testing.assert_allclose(net.evaluate(x[i : i + 1])[0], out[i], rtol=1e-5)
    eq = equity_of("dutch", net.heads, out)
    np.testing.assert_allclose(eq, 2 * out[:, 0] - 1 + out[:, 1] - out[:, 2], rtol=1e-5)


def test_perspective_map_swaps_sides() -> None:
    heads = HEADS["pin"]
    perm, sign, offset = perspective_map(heads)
    out = np.array([0.7, 0.2, 0.1, 0.05, 0.01, 0.3, 0.1], dtype=np.float32)
    other = offset + sign * out[perm]
    assert other[heads.index("win")] == pytest.approx(0.3)
    assert other[heads.index("gammon_win")] == pytest.approx(0.1)
    assert other[heads.index("points_loss")] == pytest.approx(0.3)
    back = offset + sign * other[perm]
    np.testing.assert_allclose(back, out, rtol=1e-6)


@pytest.mark.parametrize("roller", [0, 1])
def test_td_traces_are_the_output_gradients(roller: int) -> None:
    """With λ = 0 the trace after one step is the gradient of each head (seat 0's frame):
    compare with finite differences."""
    net = Network.create("pin", 12, 5, seed=3)
    learner = Learner(net, alpha=0.1, lam=0.0)
    x = np.random.default_rng(1).random(12, dtype=np.float32)
    h, out = net.forward(x[None, :])
    learner.step(x, h[0], out[0], roller)

    def value(w1: np.ndarray, w2: np.ndarray) -> np.ndarray:
        probe = Network("pin", net.heads, w1, net.b1, w2, net.b2)
        return learner.to_seat0(probe.evaluate(x[None, :].astype(np.float32))[0], roller)

    eps = 1e-2
    for j, i in [(0, 0), (2, 7), (4, 11)]:
        w1 = net.w1.astype(np.float64)
        plus, minus = w1.copy(), w1.copy()
        plus[j, i] += eps
        minus[j, i] -= eps
        numeric = (value(plus, net.w2) - value(minus, net.w2)) / (2 * eps)
        np.testing.assert_allclose(learner.e_w1[:, j, i], numeric, atol=2e-4)
    for k, j in [(0, 1), (5, 3)]:
        w2 = net.w2.astype(np.float64)
        plus, minus = w2.copy(), w2.copy()
        plus[k, j] += eps
        minus[k, j] -= eps
        numeric = (value(net.w1, plus) - value(net.w1, minus)) / (2 * eps)
        np.testing.assert_allclose(learner.e_w2[:, k, j], numeric, atol=2e-4)


class PlainTD:
    """TD(λ) written the textbook way (dense traces decayed every step): the reference for
    ``Learner``, which stores its traces scaled and updates only the nonzero inputs' columns."""

    def __init__(self, net: Network, alpha: float, lam: float) -> None:
        self.net, self.alpha, self.lam = net, alpha, lam
        self.perm, self.sign, self.offset = perspective_map(net.heads)
        k, h, i = len(net.heads), net.hidden, net.inputs
        self.e = [np.zeros(s) for s in ((k, h, i), (k, h), (k, k, h), (k, k))]
        self.prev: np.ndarray | None = None

    def step(self, x: np.ndarray, roller: int) -> None:
        net = self.net
        h, out = (a[0].astype(np.float64) for a in net.forward(x[None, :]))
        v0 = out if roller == 0 else self.offset + self.sign * out[self.perm]
        if self.prev is not None:
            self.apply(v0 - self.prev)
        k = len(out)
        d = out * (1 - out)
        gh = d[:, None] * net.w2 * (h * (1 - h))[None, :]
        grads = [
            gh[:, :, None] * x[None, None, :],
            gh,
            np.einsum("kj,kh->kjh", np.eye(k) * d[:, None], np.broadcast_to(h, (k, len(h)))),
            np.diag(d),
        ]
        if roller == 1:
            grads = [self.sign.reshape(-1, *([1] * (g.ndim - 1))) * g[self.perm] for g in grads]
        self.e = [self.lam * e + g for e, g in zip(self.e, grads, strict=True)]
        self.prev = v0

    def apply(self, delta: np.ndarray) -> None:
        a = self.alpha * delta
        for w, e in zip((self.net.w1, self.net.b1, self.net.w2, self.net.b2), self.e, strict=True):
            w += np.tensordot(a, e, axes=1).astype(np.float32)


@pytest.mark.parametrize("variant", ["pin", "blocking", "dutch"])
def test_td_learner_equals_the_plain_scheme(variant: str) -> None:
    """Games long enough for several renormalisations of the scaled traces, both rollers,
    a real encoding (mostly zero inputs): the same weights up to float rounding."""
    enc = Encoder(variant)
    net = Network.create(variant, enc.width, 16, seed=4)
    ref = Network(variant, net.heads, net.w1.copy(), net.b1.copy(), net.w2.copy(), net.b2.copy())
    learner, plain = Learner(net, alpha=0.1, lam=0.7), PlainTD(ref, alpha=0.1, lam=0.7)
    rng = random.Random(8)
    steps = 0
    for _ in range(2):
        state = GameState.new(variant, ("a", "b"), rng)
        learner.start_game()
        plain.e = [np.zeros_like(e) for e in plain.e]
        plain.prev = None
        while not state.is_over:
            play = rng.choice(state.legal_plays())
            x = enc.encode([play.after], opponent_on_roll=True)[0]
            h, out = net.forward(x[None, :])
            learner.step(x, h[0], out[0], 1 - state.mover)
            plain.step(x, 1 - state.mover)
            state = state._apply(play, rng, auto=False)
            steps += 1
        assert state.result is not None
        target = result_targets(net.heads, state.result)
        learner.finish(target)
        plain.apply(target - plain.prev)
    assert steps > 150
    for name, w in net.arrays().items():
        np.testing.assert_allclose(w, ref.arrays()[name], rtol=0, atol=2e-5, err_msg=name)
    # ... and training moved them well beyond that tolerance.
    fresh = Network.create(variant, enc.width, 16, seed=4)
    assert np.abs(net.w1 - fresh.w1).max() > 2e-3


def test_td_update_moves_the_value_towards_the_result() -> None:
    net = Network.create("blocking", 10, 6, seed=2)
    learner = Learner(net, alpha=0.5, lam=0.7)
    x = np.full(10, 0.5, dtype=np.float32)
    before = float(net.evaluate(x[None, :])[0, 0])
    for _ in range(5):
        learner.start_game()
        h, out = net.forward(x[None, :])
        learner.step(x, h[0], out[0], 0)
        learner.finish(result_targets(net.heads, GameResult(0, 1, "single")))
    assert float(net.evaluate(x[None, :])[0, 0]) > before + 0.05


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_progress_baseline_plays_as_the_benchmark_baseline(variant: str) -> None:
    """The training's progress sample takes a shortcut to the greedy baseline's choice: it must
    be the play choose_play makes at the baseline level, decision for decision."""
    rules = get_variant(variant)
    rng = random.Random(21)
    compared = 0
    while compared < 150:
        state = GameState.new(variant, ("a", "b"), rng)
        while not state.is_over and compared < 150:
            plays = state.legal_plays()
            dice = state.current_dice()
            assert dice is not None
            pos = state.position_for(state.mover)
            if len(plays) > 1:
                expected = choose_play(rules, pos, dice, level=BASELINE, match=MatchContext(1))
                assert greedy_baseline(rules, pos, dice, plays, rng) == expected
                compared += 1
            state = state._apply(rng.choice(plays), rng, auto=False)


class RecordingLearner(Learner):
    """A learner that records what it is shown (and, with alpha 0, learns nothing)."""

    def __init__(self, net: Network) -> None:
        super().__init__(net, alpha=0.0, lam=0.7)
        self.seen: list[tuple[FloatArray, int]] = []

    def step(self, x: FloatArray, h: FloatArray, out: FloatArray, roller: int) -> None:
        self.seen.append((x.copy(), roller))
        super().step(x, h, out, roller)


def test_express_chains_are_learned_from_where_they_end() -> None:
    """Self-play steps only at turn boundaries, each position encoded with the player who rolls
    next on roll, however the chain was handed over."""
    rules = get_variant("blocking-express")
    encoder = Encoder(rules)
    net = Network.create("blocking-express", encoder.width, 6, seed=2)
    player = NetPlayer(net, encoder)
    handed_over = skipped = 0
    for seed in range(40):
        learner = RecordingLearner(net)
        self_play_game(player, learner, random.Random(seed))
        # The same game again (alpha 0: the same choices), state by state.
        expected: list[tuple[FloatArray, int]] = []
        rng = random.Random(seed)
        state = GameState.new("blocking-express", ("0", "1"), rng)
        while not state.is_over:
            seat = state.mover
            plays = state.legal_plays()
            i = player.pick(player.scores(plays)[2]) if len(plays) > 1 else 0
            state = state._apply(plays[i], rng, auto=False)
            if state.chain is not None and not state.chain.first:
                skipped += 1
                continue
            roller = seat if not state.is_over and state.mover == seat else 1 - seat
            board = state.position_for(1 - roller)  # the side that is not on roll, as X
            expected.append((encoder.encode([board], opponent_on_roll=True)[0], roller))
            handed_over += not state.is_over and roller == seat
        assert len(learner.seen) == len(expected)
        for (x, roller), (want_x, want_roller) in zip(learner.seen, expected, strict=True):
            assert roller == want_roller
            np.testing.assert_array_equal(x, want_x)
    # The seeds include chains, some handed over and finished by the roller's opponent.
    assert skipped > 0 and handed_over > 0


def test_result_targets() -> None:
    t = result_targets(HEADS["pin"], GameResult(1, 120, "gammon"))
    got = dict(zip(HEADS["pin"], t.tolist(), strict=True))
    assert got["win"] == 0.0 and got["gammon_loss"] == 1.0 and got["bg_loss"] == 0.0
    assert got["points_loss"] == pytest.approx(120 / 400) and got["points_win"] == 0.0
    tie = result_targets(HEADS["pin-mother"], GameResult(None, 0, "tie"))
    assert tie[0] == 0.5 and tie[1:].sum() == 0.0


# --- files ---------------------------------------------------------------------------------


def test_save_load_round_trip_and_refusals(tmp_path: Path) -> None:
    enc = Encoder("neverfinishing")
    net = Network.create("neverfinishing", enc.width, 9, seed=4)
    path = tmp_path / "neverfinishing.npz"
    net.save(path)
    again = Network.load(path, "neverfinishing")
    for name, arr in net.arrays().items():
        np.testing.assert_array_equal(again.arrays()[name], arr)
        assert again.arrays()[name].dtype == np.float32
    with pytest.raises(ValueError, match="not 'pin'"):
        Network.load(path, "pin")
    meta = json.loads(path.with_suffix(".json").read_text())
    for key, bad in (("encoding_version", 99), ("hidden", 3), ("heads", [])):
        broken = dict(meta, **{key: bad})
        path.with_suffix(".json").write_text(json.dumps(broken))
        with pytest.raises(ValueError):
            Network.load(path)
    path.with_suffix(".json").write_text(json.dumps(meta))
    nan = Network("neverfinishing", net.heads, net.w1 * np.nan, net.b1, net.w2, net.b2, meta)
    nan.save(path)
    with pytest.raises(ValueError, match="finite"):
        Network.load(path)


def test_missing_or_broken_weights_fall_back_to_the_hand_evaluation(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO, logger="ai.learned")
    assert load_learned("dutch", tmp_path) is None
    assert "no learned weights for dutch" in caplog.text
    (tmp_path / "dutch.npz").write_bytes(b"not a numpy file")
    (tmp_path / "dutch.json").write_text('{"variant": "dutch"}')
    caplog.clear()
    assert load_learned("dutch", tmp_path) is None
    assert "failed to load" in caplog.text
    # The level's evaluator then is the hand one; with weights loaded, the learned one.
    monkeypatch.setattr(learned, "_LOADED", {"dutch": None})
    assert evaluator("dutch", learned=True) is evaluator_for("dutch")
    net = Network.create("dutch", Encoder("dutch").width, 4, seed=1)
    loaded = LearnedEvaluator(net)
    monkeypatch.setattr(learned, "_LOADED", {"dutch": loaded})
    assert evaluator("dutch", learned=True) is loaded
    assert evaluator("dutch", learned=False) is evaluator_for("dutch")
    # Benchmarks switch the learned evaluations off for a comparison.
    assert use_learned(False) is True
    try:
        assert evaluator("dutch", learned=True) is evaluator_for("dutch")
    finally:
        use_learned(True)


def test_learned_evaluator_values(tmp_path: Path) -> None:
    enc = Encoder("dutch")
    net = Network.create("dutch", enc.width, 8, seed=5)
    ev = LearnedEvaluator(net)
    rules = get_variant("dutch")
    positions = game_positions("dutch", 9, 40)
    eq, win = ev.evaluate(rules, positions)
    assert eq.shape == win.shape == (40,)
    assert ((win >= 0) & (win <= 1)).all()
    # In a 1-point match only winning counts.
    eq1, win1 = ev.evaluate(rules, positions, MatchContext(length=1))
    np.testing.assert_allclose(eq1, 2 * win1 - 1, atol=1e-6)
    # A finished game is valued exactly: X has borne off all, O none (a gammon).
    done = Position("dutch", ("", "", *("",) * 20, "OO", "", ""), reserve=(0, 13), off=(15, 0))
    eq, win = ev.evaluate(rules, [done])
    assert win[0] == 1.0 and eq[0] == 2.0


# --- training program ----------------------------------------------------------------------


def test_training_resumes_exactly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["pin-mother", "--hidden", "6", "--seed", "7", "--eval-every", "0"]
    assert main([*common, "--games", "4", "--dir", str(tmp_path / "a")]) == 0
    assert main([*common, "--games", "2", "--dir", str(tmp_path / "b")]) == 0
    assert main([*common, "--games", "2", "--dir", str(tmp_path / "b"), "--resume"]) == 0
    a = Network.load(tmp_path / "a" / "pin-mother.npz")
    b = Network.load(tmp_path / "b" / "pin-mother.npz")
    assert a.meta["games"] == b.meta["games"] == 4
    for name, arr in a.arrays().items():
        np.testing.assert_array_equal(b.arrays()[name], arr)
    # Training changed the weights.
    fresh = Network.create("pin-mother", a.inputs, 6, seed=7)
    assert not np.array_equal(fresh.w1, a.w1)
    assert "resuming" in capsys.readouterr().out


def test_a_network_grows_to_a_larger_encoding_without_forgetting(tmp_path: Path) -> None:
    args = ["neverfinishing", "--hidden", "5", "--eval-every", "0", "--dir", str(tmp_path)]
    assert main([*args, "--games", "1"]) == 0
    old = Network.load(tmp_path / "neverfinishing.npz")
    assert old.meta["encoding_version"] == 1
    assert main([*args, "--games", "0", "--resume", "--encoding", "2"]) == 0
    new = Network.load(tmp_path / "neverfinishing.npz")
    assert new.meta["encoding_version"] == 2 and new.meta["config"]["encoding_version"] == 2
    assert new.inputs == Encoder("neverfinishing", 2).width > old.inputs
    np.testing.assert_array_equal(new.w1[:, : old.inputs], old.w1)
    assert not new.w1[:, old.inputs :].any()
    # The same evaluations as before the new inputs were added.
    positions = game_positions("neverfinishing", 5, 30)
    rules = get_variant("neverfinishing")
    before, _ = LearnedEvaluator(old).evaluate(rules, positions)
    after, _ = LearnedEvaluator(new).evaluate(rules, positions)
    np.testing.assert_allclose(after, before, atol=1e-6)
    # It trains on, and cannot go back, nor sideways to encoding 3 (other columns after 1's).
    assert main([*args, "--games", "1", "--resume"]) == 0
    assert main([*args, "--games", "0", "--resume", "--encoding", "1"]) == 2
    assert main([*args, "--games", "0", "--resume", "--encoding", "3"]) == 2


def test_an_express_network_grows_to_the_mobility_encoding(tmp_path: Path) -> None:
    args = ["blocking-express", "--hidden", "5", "--eval-every", "0", "--dir", str(tmp_path)]
    assert main([*args, "--games", "1"]) == 0
    old = Network.load(tmp_path / "blocking-express.npz")
    assert main([*args, "--games", "0", "--resume", "--encoding", "3"]) == 0
    new = Network.load(tmp_path / "blocking-express.npz")
    assert new.meta["encoding_version"] == 3
    assert new.inputs == Encoder("blocking-express", 3).width == old.inputs + 24
    positions = game_positions("blocking-express", 5, 30)
    rules = get_variant("blocking-express")
    before, _ = LearnedEvaluator(old).evaluate(rules, positions)
    after, _ = LearnedEvaluator(new).evaluate(rules, positions)
    np.testing.assert_allclose(after, before, atol=1e-6)
    # Training moves the new inputs' weights.
    assert main([*args, "--games", "3", "--resume"]) == 0
    assert Network.load(tmp_path / "blocking-express.npz").w1[:, old.inputs :].any()


def test_a_new_run_can_start_from_another_variants_network(tmp_path: Path) -> None:
    common = ["--hidden", "5", "--seed", "3", "--eval-every", "0"]
    assert main(["blocking", *common, "--games", "2", "--dir", str(tmp_path / "b")]) == 0
    base = Network.load(tmp_path / "b" / "blocking.npz")
    # --hidden is the base network's, whatever the command line says.
    args = ["blocking-express", "--hidden", "9", "--eval-every", "0", "--dir", str(tmp_path / "x")]
    init = ["--init-from", str(tmp_path / "b" / "blocking.npz")]
    assert main([*args, *init, "--games", "0"]) == 0
    start = Network.load(tmp_path / "x" / "blocking-express.npz", "blocking-express")
    for name, arr in base.arrays().items():
        np.testing.assert_array_equal(start.arrays()[name], arr)
    assert start.meta["config"]["init_from"] == {"variant": "blocking", "games": 2, "seed": 3}
    assert main([*args, "--games", "2", "--resume"]) == 0
    trained = Network.load(tmp_path / "x" / "blocking-express.npz")
    assert trained.meta["games"] == 2 and not np.array_equal(trained.w1, base.w1)
    command = _shipped_command("blocking-express", tmp_path / "x", tmp_path / "w")
    assert "ai.train blocking --seed 3 --games 2" in command and "--init-from" in command
    # A network of other inputs or heads cannot start it.
    pin = ["pin", *common, "--games", "1", "--dir", str(tmp_path / "p")]
    assert main(pin) == 0
    other = ["--init-from", str(tmp_path / "p" / "pin.npz"), "--games", "0"]
    elsewhere = [*args[:-1], str(tmp_path / "y")]
    assert main([*elsewhere, *other]) == 1
    assert main([*elsewhere, "--init-from", str(tmp_path / "no.npz"), "--games", "0"]) == 1


def test_training_reports_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["blocking", "--hidden", "4", "--games", "1", "--eval-every", "1", "--eval-games", "2"]
    assert main([*args, "--dir", str(tmp_path)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert [e["games"] for e in lines] == [0, 1]
    assert all(0.0 <= e["win_rate"] <= 1.0 and e["sample"] == 2 for e in lines)
    assert lines[1]["games_per_minute"] > 0
    curve = Network.load(tmp_path / "blocking.npz").meta["curve"]
    assert [e["games"] for e in curve] == [0, 1]


def test_training_refuses_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main(["chess"])
    with pytest.raises(SystemExit):
        main(["pin", "--games", "3", "--minutes", "1"])
    assert main(["pin", "--games", "-1", "--dir", str(tmp_path)]) == 2
    (tmp_path / "pin.npz").write_bytes(b"junk")
    (tmp_path / "pin.json").write_text("{}")
    assert main(["pin", "--resume", "--games", "0", "--dir", str(tmp_path)]) == 1


# --- shipped weights -----------------------------------------------------------------------

SHIPPED = sorted(WEIGHTS_DIR.glob("*.npz"))


def check_shipped(path: Path) -> None:
    """What every shipped weights file must satisfy."""
    assert path.stat().st_size < 1_000_000
    variant = path.stem
    ev = load_learned(variant, path.parent)
    assert ev is not None
    net = ev.net
    meta = net.meta
    assert meta["encoding_version"] in ENCODINGS
    assert net.w1.shape == (meta["hidden"], Encoder(variant, meta["encoding_version"]).width)
    assert net.w2.shape == (len(HEADS[variant]), meta["hidden"])
    assert all(a.dtype == np.float32 for a in net.arrays().values())
    for key in ("games", "seed", "date", "benchmark"):
        assert key in meta, key
    # The recorded evaluation of a position after a fixed first play.
    check = meta["check"]
    rules = get_variant(variant)
    state = GameState.new(variant, ("a", "b"), random.Random(check["seed"]))
    play = sorted(state.legal_plays(), key=lambda p: p.text)[0]
    assert play.text == check["play"]
    outputs = ev.outputs([play.after])[0]
    np.testing.assert_allclose(outputs, check["outputs"], atol=1e-5)
    eq, _ = ev.evaluate(rules, [play.after])
    assert eq[0] == pytest.approx(check["equity"], abs=1e-4)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_weights_load_and_give_their_recorded_evaluation(path: Path) -> None:
    check_shipped(path)


def test_shipping_a_checkpoint(tmp_path: Path) -> None:
    args = ["dutch", "--hidden", "5", "--games", "1", "--eval-every", "0"]
    assert main([*args, "--dir", str(tmp_path)]) == 0
    target = tmp_path / "shipped"
    figures = {"vs_baseline": {"games": 0}}
    path = ship("dutch", tmp_path, target, figures)
    check_shipped(path)
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["games"] == 1 and meta["benchmark"] == figures and "rng_state" not in meta
    # The command line refuses a variant without a checkpoint.
    assert main(["pin", "--ship", "--dir", str(tmp_path)]) == 1


def test_shipped_weights_directory_has_only_weights() -> None:
    for path in WEIGHTS_DIR.glob("*"):
        assert path.suffix in (".npz", ".json", ".md"), path
        if path.suffix == ".npz":
            assert path.stem in HEADS
            assert path.with_suffix(".json").exists()


# --- the levels ----------------------------------------------------------------------------


class CountingEvaluator(LearnedEvaluator):
    """A real learned evaluation that counts the positions it was asked about."""

    seen = 0

    def evaluate(
        self,
        rules: Variant,
        positions: Sequence[Position],
        match: MatchContext | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        self.seen += len(positions)
        return super().evaluate(rules, positions, match)


@pytest.mark.parametrize("variant", ["blocking", "pin"])
def test_the_strongest_level_uses_the_learned_evaluation_where_loaded(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = get_variant(variant)
    net = Network.create(variant, Encoder(variant).width, 6, seed=1)
    counting = CountingEvaluator(net)
    monkeypatch.setattr(learned, "_LOADED", {variant: counting})
    rng = random.Random(4)
    state = GameState.new(variant, ("a", "b"), rng)
    checked = 0
    while not state.is_over and checked < 6:
        plays = state.legal_plays()
        dice = state.current_dice()
        assert dice is not None
        pos = state.position_for(state.mover)
        if len(plays) > 1:
            before = counting.seen
            rank_plays(rules, pos, dice, level=BASELINE, rng=rng)
            assert counting.seen == before  # the baseline stays on the hand evaluation
            ranked = rank_plays(rules, pos, dice, level=STRONGEST, rng=rng)
            assert counting.seen >= before + len(plays)
            assert sorted(r.play.after for r in ranked) == sorted(p.after for p in plays)
            checked += 1
        state = state._apply(rng.choice(plays), rng, auto=False)
    # Without weights the strongest level still plays (on the hand evaluation).
    monkeypatch.setattr(learned, "_LOADED", {variant: None})
    play = choose_play(rules, pos, dice, level=STRONGEST, rng=rng)
    assert play in legal_plays(pos, dice, rules)


CHECKPOINTS = sorted(COMMITTED_DIR.glob("*.npz"))


@pytest.mark.parametrize("path", CHECKPOINTS, ids=[p.stem for p in CHECKPOINTS])
def test_committed_checkpoints_resume(path: Path) -> None:
    """The training state committed for the next session loads with its dice state."""
    ck = load_checkpoint(path, path.stem)
    assert ck.games > 0 and ck.config["seed"] == ck.net.meta["config"]["seed"]
    rng = random.Random()
    rng.setstate(ck.rng_state)
    assert ck.net.inputs == Encoder(path.stem, int(ck.config["encoding_version"])).width
    assert all(entry["games"] <= ck.games for entry in ck.curve)


def test_self_play_objective(tmp_path: Path) -> None:
    """Points play and win play can disagree (pin scores pips): each picks by its own value."""
    net = Network.create("pin", Encoder("pin").width, 4, seed=1)
    heads = net.heads
    # Two candidate results, from the opponent's side: the first leaves him a better winning
    # chance but fewer expected points.
    out = np.zeros((2, len(heads)), dtype=np.float32)
    out[0, heads.index("win")], out[1, heads.index("win")] = 0.6, 0.4
    out[0, heads.index("points_win")], out[1, heads.index("points_win")] = 0.05, 0.3
    out[0, heads.index("points_loss")], out[1, heads.index("points_loss")] = 0.1, 0.05
    assert NetPlayer(net, Encoder("pin"), "points").pick(out) == 0
    assert NetPlayer(net, Encoder("pin"), "win").pick(out) == 1
    args = [
        "blocking",
        "--hidden",
        "4",
        "--games",
        "1",
        "--eval-every",
        "0",
        "--dir",
        str(tmp_path),
    ]
    assert main([*args, "--objective", "win"]) == 0
    assert Network.load(tmp_path / "blocking.npz").meta["config"]["objective"] == "win"


def test_a_resumed_run_can_lower_the_learning_rate_and_its_command_reproduces_it(
    tmp_path: Path,
) -> None:
    quiet = ["--eval-every", "0"]
    first = ["blocking", "--seed", "4", *quiet, "--dir", str(tmp_path / "a")]
    assert main([*first, "--games", "2"]) == 0
    assert main([*first, "--games", "2", "--resume", "--alpha", "0.03"]) == 0
    lowered = Network.load(tmp_path / "a" / "blocking.npz")
    config = lowered.meta["config"]
    assert config["alpha"] == 0.03
    assert config["changes"] == [{"games": 2, "alpha": [0.1, 0.03]}]
    # The same four games at the default rate end elsewhere: the rate was used.
    straight = ["blocking", "--seed", "4", *quiet, "--dir", str(tmp_path / "s"), "--games", "4"]
    assert main(straight) == 0
    assert not np.array_equal(Network.load(tmp_path / "s" / "blocking.npz").w1, lowered.w1)
    command = _shipped_command("blocking", tmp_path / "a", tmp_path / "w")
    assert command == (
        "python -m ai.train blocking --seed 4 --games 2"
        " && python -m ai.train blocking --resume --games 2 --alpha 0.03"
    )
    # Running the recorded command gives the same weights.
    for part in command.split(" && "):
        words = part.split()[3:]
        assert main([*words, *quiet, "--dir", str(tmp_path / "r")]) == 0
    again = Network.load(tmp_path / "r" / "blocking.npz")
    for name, arr in lowered.arrays().items():
        np.testing.assert_array_equal(again.arrays()[name], arr)


def test_a_resumed_run_can_grow_hidden_units_and_its_command_reproduces_it(
    tmp_path: Path,
) -> None:
    quiet = ["--eval-every", "0"]
    first = ["blocking-express", "--seed", "2", "--hidden", "6", *quiet, "--dir", str(tmp_path)]
    assert main([*first, "--games", "2"]) == 0
    old = Network.load(tmp_path / "blocking-express.npz")
    assert main([*first[:-2], "--dir", str(tmp_path), "--games", "0", "--resume"]) == 0
    assert Network.load(tmp_path / "blocking-express.npz").hidden == 6  # same size: no change
    grow = ["blocking-express", "--resume", *quiet, "--dir", str(tmp_path), "--games", "0"]
    assert main([*grow, "--hidden", "4"]) == 2  # never fewer
    assert main([*grow, "--hidden", "10"]) == 0
    grown = Network.load(tmp_path / "blocking-express.npz")
    assert grown.hidden == 10 and grown.meta["config"]["hidden"] == 10
    np.testing.assert_array_equal(grown.w1[:6], old.w1)
    assert grown.w1[6:].any() and not grown.w2[:, 6:].any()
    # Until training uses them, the new units change nothing.
    positions = game_positions("blocking-express", 5, 30)
    rules = get_variant("blocking-express")
    before, _ = LearnedEvaluator(old).evaluate(rules, positions)
    after, _ = LearnedEvaluator(grown).evaluate(rules, positions)
    np.testing.assert_allclose(after, before, atol=1e-6)
    assert main([*grow[:-1], "3", "--alpha", "0.05"]) == 0
    trained = Network.load(tmp_path / "blocking-express.npz")
    assert trained.w2[:, 6:].any()
    # Both changes came before game 3: one segment of the command.
    changes = trained.meta["config"]["changes"]
    assert changes == [{"games": 2, "hidden": [6, 10], "alpha": [0.1, 0.05]}]
    command = _shipped_command("blocking-express", tmp_path, tmp_path / "w")
    for part in command.split(" && "):
        assert main([*part.split()[3:], *quiet, "--dir", str(tmp_path / "r")]) == 0
    again = Network.load(tmp_path / "r" / "blocking-express.npz")
    for name, arr in trained.arrays().items():
        np.testing.assert_array_equal(again.arrays()[name], arr)


def test_chain_lookahead_picks_a_chain_decision_by_where_the_chain_ends() -> None:
    """With ``chain_lookahead`` K, a chain decision's best K plays (0 ply) are judged by the
    network's value of the chain's end (``ai.search.chain_outcome``); other decisions, and
    K = 0, keep the 0-ply pick."""
    rules = get_variant("blocking-express")
    encoder = Encoder(rules)
    net = Network.create("blocking-express", encoder.width, 8, seed=3)
    plain, ahead = NetPlayer(net, encoder), NetPlayer(net, encoder, chain_lookahead=3)
    ev = LearnedEvaluator(net)
    decisions = differ = 0
    for seed in range(30):
        rng = random.Random(seed)
        state = GameState.new("blocking-express", ("0", "1"), rng)
        while not state.is_over:
            plays = state.legal_plays()
            dice = state.current_dice()
            out = plain.scores(plays)[2]
            got = ahead.pick_for(rules, dice, plays, out)
            if len(plays) > 1 and isinstance(dice, ChainDice):
                order = np.argsort(equity_of(net.variant, net.heads, out), kind="stable")[:3]
                ends = [
                    chain_outcome(rules, plays[i].after, dice, len(plays[i].steps), None, ev, None)
                    for i in order
                ]
                values, _ = ev.evaluate(rules, [e for e in ends if e is not None])
                assert got == int(order[int(np.argmax(values))])
                decisions += 1
                differ += got != plain.pick(out)
            else:
                assert got == plain.pick(out)
            assert plain.pick_for(rules, dice, plays, out) == plain.pick(out)
            state = state._apply(plays[got], rng, auto=False)
    assert decisions > 0 and differ > 0  # the lookahead changed some chain decisions


def test_a_resumed_run_can_turn_on_the_chain_lookahead_and_its_command_records_it(
    tmp_path: Path,
) -> None:
    quiet = ["--eval-every", "0"]
    first = ["blocking-express", "--seed", "2", "--hidden", "6", *quiet, "--dir", str(tmp_path)]
    assert main([*first, "--games", "2"]) == 0
    assert main([*first, "--games", "1", "--resume"]) == 0
    assert main([*first, "--games", "2", "--resume", "--chain-lookahead", "4"]) == 0
    # Refused: a negative count, and a variant without chains.
    for variant, k in (("blocking-express", "-1"), ("blocking", "2")):
        args = [variant, *quiet, "--dir", str(tmp_path / "x"), "--games", "1"]
        assert main([*args, "--chain-lookahead", k]) == 2
    assert not (tmp_path / "x").exists()
    config = Network.load(tmp_path / "blocking-express.npz").meta["config"]
    assert config["chain_lookahead"] == 4
    assert config["changes"] == [{"games": 3, "chain_lookahead": [0, 4]}]
    command = _shipped_command("blocking-express", tmp_path, tmp_path / "w")
    assert command.endswith("--resume --games 2 --chain-lookahead 4")
