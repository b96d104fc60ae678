-- +goose Up
-- JSON is kept as the text it was given (json, not jsonb): the canonical
-- observation is stored whole and byte for byte.
CREATE TABLE veetbrowser_sessions (
    id           text        PRIMARY KEY,
    started_at   timestamptz NOT NULL,
    last_at      timestamptz NOT NULL, -- last write, for retention
    tool_version text        NOT NULL,
    budget       integer     NOT NULL,
    grant_json   json        NOT NULL,
    surface      text        NOT NULL,
    last_seq     bigint      NOT NULL DEFAULT 0, -- the last sequence number handed out
    bytes        bigint      NOT NULL DEFAULT 0  -- JSON bytes of the session's records
);

CREATE INDEX veetbrowser_sessions_last_at ON veetbrowser_sessions (last_at);
CREATE INDEX veetbrowser_sessions_started_at ON veetbrowser_sessions (started_at);

CREATE TABLE veetbrowser_calls (
    session_id  text        NOT NULL REFERENCES veetbrowser_sessions (id) ON DELETE CASCADE,
    seq         bigint      NOT NULL,
    tool        text        NOT NULL,
    arguments   json        NOT NULL,
    started_at  timestamptz NOT NULL,
    status      text        NOT NULL CHECK (status IN ('intent', 'complete')),
    duration_ns bigint,
    outcome     text,
    observation json,
    action      json,
    view_sha256 bytea,
    view_bytes  integer,
    projection  json,
    PRIMARY KEY (session_id, seq)
);

-- +goose Down
DROP TABLE veetbrowser_calls;
DROP TABLE veetbrowser_sessions;
