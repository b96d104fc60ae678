// Package schema is the one source of the artifact store's migrations:
// each is a template (migrations/*.sql.tmpl) rendered for every SQL
// dialect, PostgreSQL and SQLite, into the files goose applies.
//
// A template names its column types, its table prefix and its
// dialect-only clauses through Dialect. The cells of a column definition
// (name, type, the rest) are separated by tabs and aligned with spaces
// when rendered, so that a column list reads as a table in either
// dialect. The tabs are part of the source: an editor that turns them into
// spaces changes the rendered SQL, which the digests in the test catch.
//
// A migration that was released is never changed: databases have applied
// it. The test holds the digest of every rendered file.
package schema

import (
	"bytes"
	"embed"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"
	"text/tabwriter"
	"text/template"
)

//go:embed migrations/*.sql.tmpl
var templates embed.FS

// Dialect is what the templates need to know of a SQL dialect.
type Dialect struct {
	// SQLite: STRICT tables, WITHOUT ROWID and AUTOINCREMENT; else
	// PostgreSQL: identity columns and column storage.
	SQLite bool
	// Prefix starts every table and index name: a PostgreSQL database can
	// be shared with other applications, an SQLite file is the store's own.
	Prefix string
	// Column types.
	Text    string
	Integer string // 32 bits
	BigInt  string // 64 bits
	Time    string // a point in time: timestamptz, or Unix microseconds (UTC)
	JSON    string // JSON kept as the text it was given
	Bytes   string
}

// The dialects of the stores.
var (
	PostgreSQL = Dialect{Prefix: "veetbrowser_", Text: "text", Integer: "integer", BigInt: "bigint",
		Time: "timestamptz", JSON: "json", Bytes: "bytea"}
	SQLite = Dialect{SQLite: true, Text: "TEXT", Integer: "INTEGER", BigInt: "INTEGER",
		Time: "INTEGER", JSON: "TEXT", Bytes: "BLOB"}
)

// Migrations renders every migration for d: a flat file system of goose
// SQL files (00001_initial.sql, …).
func Migrations(d Dialect) (fs.FS, error) {
	names, err := fs.Glob(templates, "migrations/*.sql.tmpl")
	if err != nil {
		return nil, err
	}
	files := fstest.MapFS{}
	for _, name := range names {
		t, err := template.ParseFS(templates, name)
		if err != nil {
			return nil, err
		}
		var out bytes.Buffer
		aligned := tabwriter.NewWriter(&out, 0, 0, 1, ' ', 0)
		if err := t.Execute(aligned, d); err != nil {
			return nil, err
		}
		if err := aligned.Flush(); err != nil {
			return nil, err
		}
		files[strings.TrimSuffix(path.Base(name), ".tmpl")] = &fstest.MapFile{Data: out.Bytes(), Mode: 0o444}
	}
	return files, nil
}
