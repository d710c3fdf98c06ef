"""app.challenges: opening, answering and expiring challenges, without Discord."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.challenges import (
    MESSAGE_GRACE_SECONDS,
    AlreadyAnswered,
    BadRuleOptions,
    ChallengeAlreadyOpen,
    Challenges,
    GameInProgress,
    LevelWithoutComputer,
    NoOpenChallenge,
    NotChallenged,
    OpenToAnyone,
    OwnChallenge,
    SelfChallenge,
    option_suggestions,
    parse_rule_options,
)
from app.errors import Refusal
from app.table import Outcome
from tests.app.conftest import FakeClock

GUILD, CHANNEL = 1 << 22, 500
ALICE, BOB, CAROL = 11, 22, 33


async def open_pin(challenges: Challenges, opponent: int | None = BOB) -> int:
    opened = await challenges.open(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=opponent,
        variant="pin",
    )
    return opened.challenge.id


async def test_open_records_the_challenge_with_its_expiry(challenges: Challenges) -> None:
    opened = await challenges.open(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=BOB,
        variant="pin-mother",
        length=3,
        options="PLAKOTO",
    )
    assert opened.challenge.variant == "pin-mother"
    assert opened.challenge.match_length == 3
    assert opened.challenge.options == ("plakoto",)
    assert opened.minutes >= 1


@pytest.mark.parametrize(
    ("kwargs", "refusal"),
    [
        ({"opponent_id": ALICE}, SelfChallenge),
        ({"level": "expert"}, LevelWithoutComputer),
        ({"options": "nope"}, BadRuleOptions),
    ],
)
async def test_bad_challenges_are_refused_with_their_reason(
    challenges: Challenges, kwargs: dict[str, object], refusal: type[Refusal]
) -> None:
    arguments: dict[str, object] = {
        "guild_id": GUILD,
        "channel_id": CHANNEL,
        "challenger_id": ALICE,
        "opponent_id": BOB,
        "variant": "pin",
    }
    arguments.update(kwargs)
    with pytest.raises(refusal) as caught:
        await challenges.open(**arguments)  # type: ignore[arg-type]
    assert str(caught.value)  # every refusal carries the message shown to the user


async def test_one_open_challenge_per_channel(challenges: Challenges) -> None:
    await open_pin(challenges)
    with pytest.raises(ChallengeAlreadyOpen):
        await open_pin(challenges)


async def test_who_may_answer(challenges: Challenges) -> None:
    await open_pin(challenges)
    with pytest.raises(OwnChallenge):
        await challenges.answering(CHANNEL, ALICE, accept=True)
    with pytest.raises(NotChallenged):
        await challenges.answering(CHANNEL, CAROL, accept=True)
    withdrawn = await challenges.answering(CHANNEL, ALICE, accept=False)
    assert withdrawn.status == "cancelled"
    declined = await challenges.answering(CHANNEL, BOB, accept=False)
    assert declined.status == "declined"


async def test_an_open_challenge_cannot_be_declined_by_a_bystander(
    challenges: Challenges,
) -> None:
    await open_pin(challenges, opponent=None)
    with pytest.raises(OpenToAnyone):
        await challenges.answering(CHANNEL, CAROL, accept=False)
    answering = await challenges.answering(CHANNEL, CAROL, accept=True)
    assert answering.status == "accepted"


async def test_accept_starts_the_game_and_shows_it_once(challenges: Challenges) -> None:
    await open_pin(challenges)
    answering = await challenges.answering(CHANNEL, BOB, accept=True)
    shown: list[Outcome] = []

    async def show(outcome: Outcome) -> None:
        shown.append(outcome)

    outcome = await challenges.accept(answering, BOB, ("alice", "bob"), show)
    assert shown == [outcome]
    assert (outcome.game.player_x, outcome.game.player_o) == (ALICE, BOB)
    assert outcome.game.rated
    # The channel now has its game: a second accept (a double click) starts nothing.
    with pytest.raises(GameInProgress):
        await challenges.accept(answering, BOB, ("alice", "bob"), show)
    assert len(shown) == 1
    with pytest.raises(NoOpenChallenge):
        await challenges.answering(CHANNEL, BOB, accept=True)
    with pytest.raises(GameInProgress):
        await open_pin(challenges)


async def test_a_declined_challenge_is_closed_once(challenges: Challenges) -> None:
    await open_pin(challenges)
    answering = await challenges.answering(CHANNEL, BOB, accept=False)
    tidied: list[str] = []

    async def tidy() -> None:
        tidied.append("done")

    await challenges.close(answering, tidy)
    assert tidied == ["done"]
    with pytest.raises(AlreadyAnswered):
        await challenges.close(answering, tidy)
    with pytest.raises(NoOpenChallenge):
        await challenges.answering(CHANNEL, BOB, accept=True)


async def test_challenges_expire_on_the_clock(challenges: Challenges, clock: FakeClock) -> None:
    opened = await challenges.open(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, variant="dutch"
    )
    assert await challenges.expire_due(None) == []
    clock.advance(opened.minutes * 60 + 1)
    with pytest.raises(NoOpenChallenge):
        await challenges.answering(CHANNEL, BOB, accept=True)
    expired = await challenges.expire_due(None)
    assert [c.id for c in expired] == [opened.challenge.id]
    assert await challenges.expire_due(None) == []
    # Its message owes the "expired" edit until it is made. Without its id ten minutes after
    # the challenge opened, the id is lost (it is stored right after the post): no edit waits.
    (owed,) = await challenges.unretired(None)
    assert owed.id == opened.challenge.id and owed.status == "expired"
    assert owed.message_id is None and not challenges.message_pending(owed)
    assert opened.minutes * 60 + 1 >= MESSAGE_GRACE_SECONDS
    young = replace(owed, created_at=clock() - MESSAGE_GRACE_SECONDS + 1)
    assert challenges.message_pending(young)  # its id may still come
    await challenges.remember_message(owed.id, 4242)
    fresh = await challenges.still_unretired(owed)
    assert fresh is not None and fresh.message_id == 4242
    assert not challenges.message_pending(fresh)
    await challenges.retired(fresh)
    assert await challenges.unretired(None) == []
    assert await challenges.still_unretired(owed) is None


def test_rule_options_parse_and_suggest() -> None:
    assert parse_rule_options("dutch", "mustenterall, previousWinner") == (
        "mustEnterAll",
        "previousWinner",
    )
    with pytest.raises(BadRuleOptions, match="Its options"):
        parse_rule_options("classic", "plakoto")
    values = [value for _, value in option_suggestions("dutch", "mustEnterAll, p")]
    assert values == ["mustEnterAll, previousWinner"]
    assert option_suggestions("no-such-variant", "") == []


async def test_a_forged_challenge_button_is_refused(challenges: Challenges) -> None:
    with pytest.raises(NoOpenChallenge):
        await challenges.answering(CHANNEL, BOB, accept=True, challenge_id=10**20)
