-- 0004: gateway IDENTIFY reservations per rate-limit bucket (shard id % max_concurrency), so
-- that bot processes starting together respect Discord's identify rate limit. `at` is the
-- Unix time (seconds) of the latest reservation in the bucket.

CREATE TABLE identify_slots (
    bucket INTEGER PRIMARY KEY CHECK (bucket >= 0),
    at     REAL    NOT NULL
);
