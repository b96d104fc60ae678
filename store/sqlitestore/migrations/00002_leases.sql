-- +goose Up
-- One row per leased profile: at most one lease of a tenant's profile,
-- live while expires (Unix microseconds, UTC) is in the future; an expired
-- row is taken over by the next acquire or deleted by the reaper.
CREATE TABLE leases (
    id      TEXT    PRIMARY KEY,
    tenant  TEXT    NOT NULL,
    profile TEXT    NOT NULL,
    holder  TEXT    NOT NULL, -- the serving process that holds it
    expires INTEGER NOT NULL,
    UNIQUE (tenant, profile)
) STRICT;

CREATE INDEX leases_expires ON leases (expires);

-- +goose Down
DROP TABLE leases;
