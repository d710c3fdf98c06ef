-- 0009: small facts the bot keeps about itself between starts, one row per key. Twin of
-- ../0009_bot_state.sql (see there).

CREATE TABLE bot_state (
    key        TEXT PRIMARY KEY CHECK (key <> ''),
    value      TEXT NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
