-- 0012: analysis and puzzles. Twin of ../0012_puzzles.sql.
-- game_reviews: the judged mistakes of a reviewed game (JSON written by app.reports), so the
-- Previous/Next buttons of a review page through them without judging the game again.
-- puzzle_answers: each player's first answer to each puzzle (a puzzle is its benchmark key,
-- "<variant>:<line>"); later answers are shown but do not count.
-- puzzle_players: a player's solved count and current and best streaks (first answers right
-- in a row), kept with the answers in one transaction.
-- daily_puzzles: the daily puzzle of a guild and UTC day, claimed before it is posted (the row
-- is the nonce: a second sweep or process finds it and posts nothing); message_id is set once
-- the message is out.
-- guild_settings.daily_puzzle_channel: where the daily puzzle is posted; NULL = off.

CREATE TABLE game_reviews (
    game_id     BIGINT PRIMARY KEY,
    body        TEXT NOT NULL,
    reviewed_at DOUBLE PRECISION NOT NULL
);

CREATE TABLE puzzle_answers (
    user_id     BIGINT NOT NULL,
    puzzle      TEXT NOT NULL CHECK (puzzle <> ''),
    guild_id    BIGINT,
    solved      INTEGER NOT NULL CHECK (solved IN (0, 1)),
    answered_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (user_id, puzzle)
);

CREATE TABLE puzzle_players (
    user_id     BIGINT PRIMARY KEY,
    solved      INTEGER NOT NULL DEFAULT 0,
    answered    INTEGER NOT NULL DEFAULT 0,
    streak      INTEGER NOT NULL DEFAULT 0,
    best_streak INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE daily_puzzles (
    guild_id   BIGINT NOT NULL,
    day        TEXT NOT NULL,
    puzzle     TEXT NOT NULL,
    channel_id BIGINT NOT NULL,
    message_id BIGINT,
    claimed_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (guild_id, day)
);

ALTER TABLE guild_settings ADD COLUMN daily_puzzle_channel BIGINT;
