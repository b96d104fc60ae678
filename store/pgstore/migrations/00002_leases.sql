-- +goose Up
-- One row per leased profile: at most one lease of a tenant's profile,
-- live while expires is in the future; an expired row is taken over by the
-- next acquire or deleted by the reaper.
CREATE TABLE veetbrowser_leases (
    id      text        PRIMARY KEY,
    tenant  text        NOT NULL,
    profile text        NOT NULL,
    holder  text        NOT NULL, -- the serving process that holds it
    expires timestamptz NOT NULL,
    UNIQUE (tenant, profile)
);

CREATE INDEX veetbrowser_leases_expires ON veetbrowser_leases (expires);

-- +goose Down
DROP TABLE veetbrowser_leases;
