// Package storespec opens the artifact store a spec names, as the command
// line's --store does: a SQLite file, a PostgreSQL DSN or none. It links
// both SQL stores; a program that needs one store opens it from its own
// package (store/sqlitestore, store/pgstore) and links only that one.
package storespec

import (
	"context"
	"strings"

	"github.com/veetbot/veetbrowser/store"
	"github.com/veetbot/veetbrowser/store/pgstore"
	"github.com/veetbot/veetbrowser/store/sqlitestore"
)

// Open opens the store that spec names: "" is SQLite at
// sqlitestore.DefaultPath, a postgres:// or postgresql:// URL is
// PostgreSQL, store.None ("none") is store.Discard, anything else is a
// SQLite file path. The schema is migrated on open.
func Open(ctx context.Context, spec string) (store.Store, error) {
	switch {
	case spec == store.None:
		return store.Discard, nil
	case strings.HasPrefix(spec, "postgres://"), strings.HasPrefix(spec, "postgresql://"):
		return pgstore.Open(ctx, spec)
	case spec == "":
		return sqlitestore.OpenDefault(ctx)
	}
	return sqlitestore.Open(ctx, spec)
}
