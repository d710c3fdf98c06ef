-- 0003: a player's pending request to abort the game, kept with the game so that the other
-- player's agreement still counts after a restart. NULL = no request. Cleared by any action.

ALTER TABLE games ADD COLUMN abort_requested_by INTEGER;
