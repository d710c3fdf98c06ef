-- 0006: how boards look. Twin: postgresql/0006_board_looks.sql.
-- guild_settings.board_theme: the theme of every board the bot posts in the server's channels
-- (/settings theme). player_preferences: one row per Discord user, the same in every server
-- (a look chosen for reading comfort, e.g. high contrast, follows the player everywhere, as
-- Discord's own appearance settings do): board_theme NULL = the server's theme; own_side = 1:
-- the player's private boards (/board) are drawn from their own side of the table.

ALTER TABLE guild_settings ADD COLUMN board_theme TEXT NOT NULL DEFAULT 'default'
    CHECK (board_theme <> '');

CREATE TABLE player_preferences (
    user_id     INTEGER PRIMARY KEY,
    board_theme TEXT CHECK (board_theme <> ''),
    own_side    INTEGER NOT NULL DEFAULT 0 CHECK (own_side IN (0, 1)),
    updated_at  REAL    NOT NULL
);
