-- 0002: rule options a challenge asks for (RULES names, comma-separated, sorted; '' = none),
-- passed to the game when the challenge is accepted.

ALTER TABLE challenges ADD COLUMN options TEXT NOT NULL DEFAULT '';
