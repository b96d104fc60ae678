-- +goose Up
-- Binary data tied to a recorded call, such as a screenshot of the revision
-- it saw; deleted with its call. A blob's data and meta count toward its
-- session's bytes, for retention. meta is JSON kept as the text it was
-- given.
CREATE TABLE blobs (
    id         INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused, also after a prune
    session_id TEXT    NOT NULL,
    seq        INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    revision   TEXT    NOT NULL,
    media_type TEXT    NOT NULL CHECK (media_type IN ('image/jpeg', 'image/png')),
    data       BLOB    NOT NULL,
    meta       TEXT,
    FOREIGN KEY (session_id, seq) REFERENCES calls (session_id, seq) ON DELETE CASCADE
) STRICT;

CREATE INDEX blobs_call ON blobs (session_id, seq);

-- +goose Down
DROP TABLE blobs;
