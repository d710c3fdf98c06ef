"""gnubg position/match IDs and the .mat export, checked against GNU Backgammon itself.

The reference is the ``gnubg`` module (GNU Backgammon's own C code, a test-only dependency):
its position-ID and match-ID codecs, and its Jellyfish ``.mat`` importer reading our export back
move by move, with the position ID gnubg computes before every move.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from engine.game import DOUBLE, MOVE, GameState
from engine.history import PLAY, replay
from engine.position import O, Position, X
from interop.gnubg import gnubg_id, match_id, position_id
from interop.mat import export_mat, mat_name
from tests.engine.test_history import random_match

gnubg: Any = pytest.importorskip("gnubg")


def gnubg_board(pos: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """gnubg's board: (player not on roll, player on roll), each points 1..24 in his own
    numbering, then the bar."""
    opp = (*(pos.points[25 - p].count(O) for p in range(1, 25)), pos.bar[1])
    me = (*(pos.points[p].count(X) for p in range(1, 25)), pos.bar[0])
    return opp, me


def classic_states(seeds: range) -> list[GameState]:
    """Decision states of random classic matches (plays and cube decisions)."""
    states = []
    for seed in seeds:
        final = random_match("classic", seed, names=("Ann", "Bo"), length=1 + seed % 7)
        states += [d.before for d in replay(final)]
    return states


def test_position_ids_match_gnubg() -> None:
    seen = 0
    for state in classic_states(range(6)):
        pos = state.position_for(state.turn)
        ours = position_id(pos)
        assert ours == gnubg.position_id(gnubg_board(pos))
        assert gnubg.position_from_id(ours) == gnubg_board(pos)
        seen += 1
    assert seen > 200
    assert position_id(GameState.new("classic", ("a", "b"), random.Random(1)).board) == (
        "4HPwATDgc/ABMA"  # the starting position, as the gnubg manual shows it
    )


def test_match_ids_match_gnubg() -> None:
    for state in classic_states(range(6, 12)):
        length = state.match_length if state.match_length > 1 else 0
        owner = -1 if state.cube_owner is None else state.cube_owner
        cube = gnubg.cubeinfo(
            state.cube,
            owner,
            state.turn,
            length,
            state.score if length else (0, 0),
            int(state.crawford),
            0,
        )
        cube["jacoby"] = 0  # gammons always count here
        dice = (state.dice.high, state.dice.low) if state.phase == MOVE and state.dice else (0, 0)
        pos = gnubg.posinfo(state.mover, 0, int(state.phase == DOUBLE), 1, dice)
        assert match_id(state) == gnubg.match_id(cube, pos), state.record[-1]


def test_ids_refuse_other_variants() -> None:
    state = GameState.new("pin", ("a", "b"), random.Random(2))
    with pytest.raises(ValueError):
        gnubg_id(state)


def _import(tmp_path: Path, text: str, capfd: pytest.CaptureFixture[str]) -> dict[str, Any]:
    path = tmp_path / "match.mat"
    path.write_text(text, encoding="utf-8")
    capfd.readouterr()
    gnubg.command(f"import mat {path}")
    out = capfd.readouterr()
    assert "WARNING" not in out.out + out.err, out.out + out.err
    match: dict[str, Any] = gnubg.match(analysis=0, boards=1, statistics=0, verbose=1)
    return match


@pytest.mark.parametrize(
    ("seed", "length", "names", "offers"),
    [
        (21, 7, ("Alice Smith", "Bob"), False),
        (22, 1, ("Zoë: the 1st", "Ann"), False),  # a colon cannot stand in a .mat name
        (23, 5, ("Sam", "Sam"), False),
        (24, 11, ("Ann", "Bo"), False),
        # The right-hand player wins on the left one's drop: gnubg ended these matches after
        # that game while the result stood on a line of its own.
        (32, 7, ("Alice Smith", "Bob"), False),
        (38, 7, ("Alice Smith", "Bob"), False),
        (21, 7, ("Alice Smith", "Bob"), True),  # offers to resign: accepted, rejected, withdrawn
    ],
)
def test_exported_match_is_read_back_by_gnubg_move_for_move(
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    seed: int,
    length: int,
    names: tuple[str, str],
    offers: bool,
) -> None:
    final = random_match(
        "classic", seed, names=names, length=length, max_actions=2500, offers=offers
    )
    decisions = replay(final)
    match = _import(tmp_path, export_mat(final), capfd)
    info = match["match-info"]
    assert info["match-length"] == (length if length > 1 else 0)
    expected_names = [mat_name(n, "") for n in names]
    if expected_names[0] == expected_names[1]:
        expected_names = [expected_names[0] + " 1", expected_names[1] + " 2"]
    assert [info["X"]["name"], info["O"]["name"]] == expected_names
    games: dict[int, list[Any]] = {}
    for d in decisions:
        games.setdefault(d.game_number, []).append(d)
    assert len(match["games"]) == len(games)
    side = {"X": 0, "O": 1}
    for (number, ours), theirs in zip(sorted(games.items()), match["games"], strict=True):
        if length > 1:
            assert (theirs["info"]["score-X"], theirs["info"]["score-O"]) == ours[0].before.score
        records = [r for r in theirs["game"] if r["action"] in ("move", "double", "take", "drop")]
        drops = [i for i, r in enumerate(records) if r["action"] == "drop"]
        if drops:  # a drop ends the game (gnubg repeats the double after it at a match's end)
            records = records[: drops[0] + 1]
        mine = [d for d in ours if d.kind in (PLAY, "double", "take", "pass")]
        assert len(records) == len(mine), f"game {number}"
        for record, d in zip(records, mine, strict=True):
            assert side[record["player"]] == d.seat
            action = {"move": PLAY, "double": "double", "take": "take", "drop": "pass"}
            assert action[record["action"]] == d.kind
            if d.kind == PLAY:
                assert d.play is not None and d.before.dice is not None
                assert tuple(record["dice"]) == (d.before.dice.high, d.before.dice.low)
                # gnubg lists a play's checker moves in its own order.
                steps = sorted((s.src, s.dst) for s in d.play.steps)
                assert sorted(tuple(m) for m in record.get("move", ())) == steps
                assert record["board"] == position_id(d.play.before)
        end = ours[-1].after
        if end.result is not None and end.game_number == number:
            winner = theirs["info"]["winner"]
            assert winner is not None and side[winner] == end.result.winner
            assert theirs["info"]["points-won"] == end.result.points


def test_gnubg_navigates_our_match_through_our_ids(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Walk gnubg through the imported match: before each move its GNUbgID is ours."""
    final = random_match("classic", 31, names=("Ann", "Bo"), length=5, max_actions=300)
    plays = [d for d in replay(final) if d.kind == PLAY and d.game_number == 1]
    _import(tmp_path, export_mat(final), capfd)
    gnubg.navigate(game=-1000)
    ids = set()
    for _ in range(len(plays) * 4):
        ids.add(gnubg.gnubg_id())
        if gnubg.navigate(next=1) is not None:
            break
    ours = [gnubg_id(d.before) for d in plays]
    assert ours and all(i in ids for i in ours)


def test_a_position_id_reads_back_into_its_position() -> None:
    import random

    import pytest

    from engine import Roll, get_variant, legal_plays
    from interop.gnubg import position_from_id, position_id

    rules = get_variant("classic")
    pos = rules.initial_position()
    assert position_from_id("4HPwATDgc/ABMA") == pos
    rng = random.Random(11)
    for _ in range(200):  # hits, the bar, bearing off: every ID reads back
        plays = legal_plays(pos, Roll.of(rng.randint(1, 6), rng.randint(1, 6)), rules)
        after = rng.choice(plays).after
        if rules.result(after) is not None:
            break
        pos = after.flip()
        assert position_from_id(position_id(pos)) == pos
    for bad in ("", "4HPwATDgc/ABM", "4HPwATDgc/AB!A", "//////////////", "AAAAAAAAAAAAAA"):
        with pytest.raises(ValueError):
            position_from_id(bad)
