-- +goose Up
-- Times are Unix microseconds (UTC), durations nanoseconds, JSON is kept as
-- the text it was given.
CREATE TABLE sessions (
    id           TEXT    PRIMARY KEY,
    started_at   INTEGER NOT NULL,
    last_at      INTEGER NOT NULL, -- last write, for retention
    tool_version TEXT    NOT NULL,
    budget       INTEGER NOT NULL,
    grant_json   TEXT    NOT NULL,
    surface      TEXT    NOT NULL,
    last_seq     INTEGER NOT NULL DEFAULT 0, -- the last sequence number handed out
    bytes        INTEGER NOT NULL DEFAULT 0  -- JSON bytes of the session's records
) STRICT;

CREATE INDEX sessions_last_at ON sessions (last_at);
CREATE INDEX sessions_started_at ON sessions (started_at);

CREATE TABLE calls (
    session_id  TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    tool        TEXT    NOT NULL,
    arguments   TEXT    NOT NULL,
    started_at  INTEGER NOT NULL,
    status      TEXT    NOT NULL CHECK (status IN ('intent', 'complete')),
    duration_ns INTEGER,
    outcome     TEXT,
    observation TEXT,
    action      TEXT,
    view_sha256 BLOB,
    view_bytes  INTEGER,
    projection  TEXT,
    PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE calls;
DROP TABLE sessions;
