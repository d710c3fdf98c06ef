-- 0003: a player's pending request to abort the game, kept with the game so that the other
-- player's agreement still counts after a restart. NULL = no request. Cleared by any action.
-- Twin of ../0003_abort_requests.sql.

ALTER TABLE games ADD COLUMN abort_requested_by BIGINT;
