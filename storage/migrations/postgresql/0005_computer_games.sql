-- 0005: games against the computer and games with hints. Twin of ../0005_computer_games.sql.
-- ai_level: the computer player's level when seat O (the bot's own user) is the computer; NULL
-- for a game between two people. rated = 0 keeps a game out of the ratings; hints = 1: both
-- players agreed that /hint may be used.

ALTER TABLE games ADD COLUMN ai_level TEXT;
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 1;
ALTER TABLE games ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
ALTER TABLE challenges ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;

-- /stats: a player's record against each level of the computer.
CREATE INDEX games_ai_finished ON games (guild_id, player_x, ai_level)
    WHERE status = 'finished' AND ai_level IS NOT NULL;
