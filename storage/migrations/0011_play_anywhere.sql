-- 0011: games outside a server with the bot. Twin: postgresql/0011_play_anywhere.sql.
-- games.context: where the game is played.
--   'guild' a server's channel or thread, where the bot is a member (every game until now);
--   'dm'    the direct message channel between a player and the bot (the bot may post there);
--   'user'  wherever the app is installed to its player's account but the bot is not present
--           (a server without the bot, a group DM, a DM between people): only the interaction
--           that a player sends and its follow-ups reach that channel, never a channel message.
-- Games of 'dm' and 'user' belong to no server: their guild_id is 0 (Discord ids are never 0),
-- so no server's leaderboard, /games, /history or ratings ever sees them; they are against the
-- computer and never rated. /stats shows them as the player's practice record (read through
-- games_ai_finished, whose first column is guild_id).

ALTER TABLE games ADD COLUMN context TEXT NOT NULL DEFAULT 'guild'
    CHECK (context IN ('guild', 'dm', 'user'));

