-- 0010: reserved. The tournaments migration takes this number; this placeholder only keeps the
-- numbering without gaps in a branch without it (drop it when the two branches meet).
SELECT 1;
