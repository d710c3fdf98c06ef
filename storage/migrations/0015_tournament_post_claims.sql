-- 0015: who is posting what a tournament owes. Twin: postgresql/0015_tournament_post_claims.sql.
-- Two processes may run the same shard for a while (a rolling restart) and both find the same
-- announcement or match message owed: before posting, a process claims it until a few seconds
-- from now (a compare-and-set on *_claimed_until), so only one posts. A claim a killed process
-- left runs out by itself. *_attempts counts the claims of what is owed now: from the second
-- on, an earlier attempt may have got its post out (and died before recording it), so the
-- process looks in the channel first.
ALTER TABLE tournaments ADD COLUMN announce_claimed_until REAL;
ALTER TABLE tournaments ADD COLUMN announce_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournament_pairings ADD COLUMN post_claimed_until REAL;
ALTER TABLE tournament_pairings ADD COLUMN post_attempts INTEGER NOT NULL DEFAULT 0;
-- What is owed at the upgrade may have been tried by the version before: look first.
UPDATE tournaments SET announce_attempts = 1;
UPDATE tournament_pairings SET post_attempts = 1 WHERE posted = 0;
