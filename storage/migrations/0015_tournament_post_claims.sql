-- 0015: who is posting what a tournament owes. Twin: postgresql/0015_tournament_post_claims.sql.
-- Two processes may run the same shard for a while (a rolling restart) and both find the same
-- announcement or match message owed: before posting, a process claims it until a few seconds
-- from now (a compare-and-set on these columns), so only one posts. A claim a killed process
-- left runs out by itself; the next process looks in the channel first (the post may be out).
ALTER TABLE tournaments ADD COLUMN announce_claimed_until REAL;
ALTER TABLE tournament_pairings ADD COLUMN post_claimed_until REAL;
