-- 0009: small facts the bot keeps about itself between starts, one row per key. Twin:
-- postgresql/0009_bot_state.sql. First use: the hash of the slash commands last synced to
-- Discord per application and scope (key "commands:<application id>:<global|guild id>"), so
-- that a start with unchanged commands does not sync them again.

CREATE TABLE bot_state (
    key        TEXT PRIMARY KEY CHECK (key <> ''),
    value      TEXT NOT NULL,
    updated_at REAL NOT NULL
);
