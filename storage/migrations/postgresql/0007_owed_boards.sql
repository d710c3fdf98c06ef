-- 0007: boards owed to a channel survive a restart. Twin of ../0007_owed_boards.sql.
-- board_owed_version: the game version whose board the channel has not been shown yet; set in
-- the transaction that commits an action, cleared once that board (or a later one) is out.

ALTER TABLE games ADD COLUMN board_owed_version BIGINT;

CREATE INDEX games_board_owed ON games (id) WHERE board_owed_version IS NOT NULL;
