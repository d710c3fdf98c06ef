-- 0008: a thread per game, and who gets pinged. Twin of ../0008_threads_pings.sql.
-- games.parent_channel_id: the channel whose challenge opened the game's thread (the game is
-- played in channel_id, the thread); NULL when the game is played in the channel itself. The
-- parent sees the start line and the result card.
-- guild_settings.game_threads: 1 = accepting a challenge opens a thread for the game (where the
-- bot may create threads); 0 = games stay in the channel (/settings threads).
-- player_preferences.pings: when a player is pinged as their turn starts: 'always', 'away'
-- (only if they have not acted in that game in the last two minutes) or 'never'.

ALTER TABLE games ADD COLUMN parent_channel_id BIGINT;

ALTER TABLE guild_settings ADD COLUMN game_threads INTEGER NOT NULL DEFAULT 1
    CHECK (game_threads IN (0, 1));

ALTER TABLE player_preferences ADD COLUMN pings TEXT NOT NULL DEFAULT 'away'
    CHECK (pings IN ('always', 'away', 'never'));
