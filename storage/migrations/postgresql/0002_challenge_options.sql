-- 0002: rule options a challenge asks for (RULES names, comma-separated, sorted; '' = none),
-- passed to the game when the challenge is accepted. Twin of ../0002_challenge_options.sql.

ALTER TABLE challenges ADD COLUMN options TEXT NOT NULL DEFAULT '';
