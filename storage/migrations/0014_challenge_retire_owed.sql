-- 0014: a closed challenge's message is owed its last edit. Twin:
-- postgresql/0014_challenge_retire_owed.sql. retire_owed = 1 from the transaction that closes an
-- open challenge (expired, declined, withdrawn, accepted by a person) until its message has lost
-- its buttons and says how it ended: a crash between the two leaves the debt on record, and the
-- challenge sweep (every 30 s, and at start) pays it. The edit is idempotent (a message without
-- buttons is left alone), so two processes paying one debt show it once.
ALTER TABLE challenges ADD COLUMN retire_owed INTEGER NOT NULL DEFAULT 0
    CHECK (retire_owed IN (0, 1));

CREATE INDEX challenges_retire_owed ON challenges (id) WHERE retire_owed = 1;
