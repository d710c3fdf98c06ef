-- 0004: gateway IDENTIFY reservations per rate-limit bucket (shard id % max_concurrency), so
-- that bot processes starting together respect Discord's identify rate limit. Twin of
-- ../0004_identify_slots.sql.

CREATE TABLE identify_slots (
    bucket INTEGER PRIMARY KEY CHECK (bucket >= 0),
    at     DOUBLE PRECISION NOT NULL
);
