-- 0001: initial schema. Times are Unix epoch seconds (REAL), supplied by the caller's clock.
-- Discord ids (snowflakes) fit in SQLite's signed 64-bit INTEGER.

CREATE TABLE guild_settings (
    guild_id                 INTEGER PRIMARY KEY,
    reminder_after_seconds   INTEGER NOT NULL DEFAULT 86400 CHECK (reminder_after_seconds > 0),
    claim_after_seconds      INTEGER NOT NULL DEFAULT 259200 CHECK (claim_after_seconds > 0),
    challenge_expiry_seconds INTEGER NOT NULL DEFAULT 600 CHECK (challenge_expiry_seconds > 0)
);

CREATE TABLE games (
    id               INTEGER PRIMARY KEY,
    guild_id         INTEGER NOT NULL,
    channel_id       INTEGER NOT NULL,
    variant          TEXT    NOT NULL CHECK (variant <> '' AND variant <> 'overall'),
    player_x         INTEGER NOT NULL,  -- the challenger, first seat
    player_o         INTEGER NOT NULL,
    match_length     INTEGER NOT NULL DEFAULT 1 CHECK (match_length >= 1),
    status           TEXT    NOT NULL DEFAULT 'active'
                     CHECK (status IN ('active', 'finished', 'aborted')),
    state_json       TEXT    NOT NULL,  -- the engine's state, opaque to storage
    version          INTEGER NOT NULL DEFAULT 0,  -- optimistic concurrency token
    board_message_id INTEGER,
    created_at       REAL    NOT NULL,
    last_action_at   REAL    NOT NULL,
    reminded_at      REAL,
    finished_at      REAL,
    -- Result, filled when status becomes 'finished' (winner NULL for a tie/draw).
    winner_id        INTEGER,
    result_kind      TEXT CHECK (result_kind IN ('single', 'gammon', 'backgammon', 'mother', 'tie',
                                                 'draw', 'resign', 'timeout', 'pass')),
    points           INTEGER CHECK (points >= 0),
    score_x          INTEGER NOT NULL DEFAULT 0 CHECK (score_x >= 0),
    score_o          INTEGER NOT NULL DEFAULT 0 CHECK (score_o >= 0),
    CHECK (player_x <> player_o),
    CHECK (winner_id IS NULL OR winner_id IN (player_x, player_o)),
    CHECK ((status = 'finished') = (result_kind IS NOT NULL)),
    CHECK ((status = 'active') = (finished_at IS NULL))
);

-- One active game per channel; also serves get_active_game(channel_id).
CREATE UNIQUE INDEX games_active_channel ON games (channel_id) WHERE status = 'active';
-- Reminder / claim sweeps scan active games by idleness.
CREATE INDEX games_active_idle ON games (last_action_at) WHERE status = 'active';
-- recent_games per guild and per player (one index per seat, merged by the query).
CREATE INDEX games_finished_guild ON games (guild_id, finished_at) WHERE status = 'finished';
CREATE INDEX games_finished_x ON games (guild_id, player_x, finished_at) WHERE status = 'finished';
CREATE INDEX games_finished_o ON games (guild_id, player_o, finished_at) WHERE status = 'finished';

CREATE TABLE moves (
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL CHECK (seq >= 1),
    actor_id INTEGER,  -- NULL for an action of the bot itself
    kind     TEXT    NOT NULL CHECK (kind <> ''),
    text     TEXT    NOT NULL DEFAULT '',
    at       REAL    NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;

CREATE TABLE challenges (
    id            INTEGER PRIMARY KEY,
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,
    challenger_id INTEGER NOT NULL,
    opponent_id   INTEGER,  -- NULL: open to anyone in the channel
    variant       TEXT    NOT NULL CHECK (variant <> '' AND variant <> 'overall'),
    match_length  INTEGER NOT NULL DEFAULT 1 CHECK (match_length >= 1),
    message_id    INTEGER,
    status        TEXT    NOT NULL DEFAULT 'open'
                  CHECK (status IN ('open', 'accepted', 'declined', 'expired', 'cancelled')),
    created_at    REAL    NOT NULL,
    expires_at    REAL    NOT NULL,
    game_id       INTEGER REFERENCES games (id),  -- the game an accepted challenge started
    CHECK (opponent_id IS NULL OR opponent_id <> challenger_id)
);

-- One open challenge per channel; also serves get_open_challenge(channel_id).
CREATE UNIQUE INDEX challenges_open_channel ON challenges (channel_id) WHERE status = 'open';
CREATE INDEX challenges_open_expiry ON challenges (expires_at) WHERE status = 'open';

-- Per (guild, variant, player) rating and statistics; variant 'overall' rates across variants.
CREATE TABLE ratings (
    guild_id        INTEGER NOT NULL,
    variant         TEXT    NOT NULL,
    user_id         INTEGER NOT NULL,
    rating          REAL    NOT NULL,
    rd              REAL    NOT NULL CHECK (rd > 0),
    volatility      REAL    NOT NULL CHECK (volatility > 0),
    games           INTEGER NOT NULL DEFAULT 0,
    wins            INTEGER NOT NULL DEFAULT 0,
    losses          INTEGER NOT NULL DEFAULT 0,
    draws           INTEGER NOT NULL DEFAULT 0,
    points_won      INTEGER NOT NULL DEFAULT 0,
    points_lost     INTEGER NOT NULL DEFAULT 0,
    gammons_won     INTEGER NOT NULL DEFAULT 0,
    backgammons_won INTEGER NOT NULL DEFAULT 0,
    mother_wins     INTEGER NOT NULL DEFAULT 0,
    current_streak  INTEGER NOT NULL DEFAULT 0,  -- > 0: wins in a row, < 0: losses in a row
    best_streak     INTEGER NOT NULL DEFAULT 0,  -- longest run of wins
    last_played_at  REAL,
    -- Key order serves player_stats (all rows of one player); the leaderboard has its index.
    PRIMARY KEY (guild_id, user_id, variant),
    CHECK (games = wins + losses + draws)
) WITHOUT ROWID;

-- Leaderboard order: rating desc, games desc, user_id asc, read straight off the index.
-- rd is included so that the "established players only" filter needs no table lookup.
CREATE INDEX ratings_leaderboard
    ON ratings (guild_id, variant, rating DESC, games DESC, user_id, rd);

CREATE TABLE rating_history (
    id       INTEGER PRIMARY KEY,
    guild_id INTEGER NOT NULL,
    variant  TEXT    NOT NULL,
    user_id  INTEGER NOT NULL,
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    rating   REAL    NOT NULL,
    rd       REAL    NOT NULL,
    at       REAL    NOT NULL,
    UNIQUE (game_id, variant, user_id)
);

CREATE INDEX rating_history_player ON rating_history (guild_id, user_id, variant, at);
