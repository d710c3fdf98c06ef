-- 0010: tournaments and seasons. Twin: postgresql/0010_tournaments.sql.
-- guild_settings.organiser_role_id: members with this role may run tournaments (besides those
-- with Manage Server); NULL: nobody else. guild_settings.season_months: how many calendar
-- months a leaderboard season lasts (1 = a calendar month).
-- tournaments.current_round is the guard that pairs each round exactly once: a round is paired
-- by one transaction that moves it from r to r+1 (only if it still is r) and inserts the
-- round's pairings; a pairing with posted = 0 still owes its thread and pings.

ALTER TABLE guild_settings ADD COLUMN organiser_role_id INTEGER;

ALTER TABLE guild_settings ADD COLUMN season_months INTEGER NOT NULL DEFAULT 1
    CHECK (season_months BETWEEN 1 AND 12);

CREATE TABLE tournaments (
    id                INTEGER PRIMARY KEY,
    guild_id          INTEGER NOT NULL,
    channel_id        INTEGER NOT NULL,
    name              TEXT    NOT NULL CHECK (name <> ''),
    format            TEXT    NOT NULL
                      CHECK (format IN ('swiss', 'knockout', 'round-robin', 'arena')),
    variant           TEXT    NOT NULL CHECK (variant <> '' AND variant <> 'overall'),
    match_length      INTEGER NOT NULL DEFAULT 1 CHECK (match_length >= 1),
    rounds            INTEGER CHECK (rounds >= 1),  -- NULL: the format's default, fixed at start
    minutes           INTEGER NOT NULL CHECK (minutes >= 1),  -- a round's time; arena: its length
    starts_at         REAL,  -- round 1 is paired then (NULL: by hand)
    rated             INTEGER NOT NULL DEFAULT 1 CHECK (rated IN (0, 1)),
    max_players       INTEGER CHECK (max_players >= 2),
    state             TEXT    NOT NULL DEFAULT 'registration'
                      CHECK (state IN ('registration', 'running', 'finished', 'cancelled')),
    current_round     INTEGER NOT NULL DEFAULT 0 CHECK (current_round >= 0),
    round_started_at  REAL,
    organiser_id      INTEGER NOT NULL,
    signup_message_id INTEGER,
    created_at        REAL    NOT NULL,
    started_at        REAL,
    finished_at       REAL
);

CREATE INDEX tournaments_guild ON tournaments (guild_id, id);
CREATE INDEX tournaments_live ON tournaments (state) WHERE state IN ('registration', 'running');

CREATE TABLE tournament_entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL,
    joined_order  INTEGER NOT NULL CHECK (joined_order >= 1),
    rating        REAL    NOT NULL DEFAULT 1500,  -- the seed, read from the ratings at start
    withdrawn     INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn IN (0, 1)),
    joined_at     REAL    NOT NULL,
    PRIMARY KEY (tournament_id, user_id),
    UNIQUE (tournament_id, joined_order)
);

CREATE TABLE tournament_pairings (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round         INTEGER NOT NULL CHECK (round >= 1),
    table_no      INTEGER NOT NULL CHECK (table_no >= 1),
    first_id      INTEGER NOT NULL,
    second_id     INTEGER,  -- NULL: a bye
    game_id       INTEGER REFERENCES games (id),
    thread_id     INTEGER,
    state         TEXT    NOT NULL
                  CHECK (state IN ('pending', 'playing', 'finished', 'forfeited', 'bye')),
    winner_id     INTEGER,  -- NULL when finished: a draw; when forfeited: a double forfeit
    first_points  INTEGER NOT NULL DEFAULT 0,
    second_points INTEGER NOT NULL DEFAULT 0,
    forfeit       INTEGER NOT NULL DEFAULT 0 CHECK (forfeit IN (0, 1)),
    sequence      INTEGER NOT NULL DEFAULT 0,  -- order in which results came in
    posted        INTEGER NOT NULL DEFAULT 0 CHECK (posted IN (0, 1)),
    created_at    REAL    NOT NULL,
    finished_at   REAL,
    UNIQUE (tournament_id, round, table_no),
    CHECK (second_id IS NULL OR second_id <> first_id)
);

CREATE UNIQUE INDEX tournament_pairings_game ON tournament_pairings (game_id)
    WHERE game_id IS NOT NULL;
CREATE INDEX tournament_pairings_owed ON tournament_pairings (tournament_id) WHERE posted = 0;
