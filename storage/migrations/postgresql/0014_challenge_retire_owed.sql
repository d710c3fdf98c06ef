-- 0014: a closed challenge's message is owed its last edit. Twin of
-- ../0014_challenge_retire_owed.sql. retire_owed = 1 from the transaction that closes an open
-- challenge until its message has lost its buttons and says how it ended (see the twin).
ALTER TABLE challenges ADD COLUMN retire_owed INTEGER NOT NULL DEFAULT 0
    CHECK (retire_owed IN (0, 1));

CREATE INDEX challenges_retire_owed ON challenges (id) WHERE retire_owed = 1;
