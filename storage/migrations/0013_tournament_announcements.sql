-- 0013: what a tournament owes its channel. Twin: postgresql/0013_tournament_announcements.sql.
-- announced_round: the last round whose pairings were announced in the event's channel;
-- announced_end: 1 once its end (final standings, or "did not start") was. A round paired or an
-- event ended is thereby owed its announcement from the transaction that did it, and the
-- sweep posts what is owed (with a nonce) and records it here: a crash between the two posts
-- it after the restart, and two processes post it once.
ALTER TABLE tournaments ADD COLUMN announced_round INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournaments ADD COLUMN announced_end INTEGER NOT NULL DEFAULT 0
    CHECK (announced_end IN (0, 1));
-- Events from before: everything they did was announced then.
UPDATE tournaments SET announced_round = current_round,
    announced_end = CASE WHEN state IN ('finished', 'cancelled') THEN 1 ELSE 0 END;
