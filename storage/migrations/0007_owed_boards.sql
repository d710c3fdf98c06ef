-- 0007: boards owed to a channel survive a restart. Twin: postgresql/0007_owed_boards.sql.
-- board_owed_version: the game version whose board the channel has not been shown yet. It is
-- set in the same transaction that commits an action (so a crash between the commit and the
-- board's post leaves the debt on record) and cleared once that board, or a later one, is out;
-- NULL: the channel shows the game as it is.

ALTER TABLE games ADD COLUMN board_owed_version INTEGER;

CREATE INDEX games_board_owed ON games (id) WHERE board_owed_version IS NOT NULL;
