-- +goose Up
-- Binary data tied to a recorded call, such as a screenshot of the revision
-- it saw; deleted with its call. A blob's data and meta count toward its
-- session's bytes, for retention. Images are compressed already: their
-- data is stored out of line without another try at compressing it.
CREATE TABLE veetbrowser_blobs (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id text   NOT NULL,
    seq        bigint NOT NULL,
    kind       text   NOT NULL,
    revision   text   NOT NULL,
    media_type text   NOT NULL CHECK (media_type IN ('image/jpeg', 'image/png')),
    data       bytea  NOT NULL,
    meta       json,
    FOREIGN KEY (session_id, seq) REFERENCES veetbrowser_calls (session_id, seq) ON DELETE CASCADE
);

ALTER TABLE veetbrowser_blobs ALTER COLUMN data SET STORAGE EXTERNAL;

CREATE INDEX veetbrowser_blobs_call ON veetbrowser_blobs (session_id, seq);

-- +goose Down
DROP TABLE veetbrowser_blobs;
