package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/veetbot/veetbrowser/store"
)

// A blob is written with its call's session in one transaction: the
// session's bytes grow by the blob's size (retention counts it with the
// JSON) and the session row, locked by that update, says whether the call
// exists: calls are numbered 1 … last_seq and only leave with their
// session. The foreign key to the call backs this up.

// blobStatements are the SQL of the blob methods.
type blobStatements struct {
	claim, insert, exists, list, read, deleteAll string
}

// blobInfoColumns are the columns a listed blob is read from, in
// readBlobInfo's order.
const blobInfoColumns = `id, session_id, seq, kind, revision, media_type, length(data), meta{text}`

func newBlobStatements(q func(string) string) blobStatements {
	return blobStatements{
		claim: q(`UPDATE {sessions} SET bytes = bytes + ? WHERE id = ? RETURNING last_seq`),
		insert: q(`INSERT INTO {blobs} (session_id, seq, kind, revision, media_type, data, meta)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		exists:    q(`SELECT count(*) FROM {sessions} WHERE id = ?`),
		list:      q(`SELECT ` + blobInfoColumns + ` FROM {blobs} WHERE session_id = ? ORDER BY seq, id`),
		read:      q(`SELECT session_id, seq, kind, revision, media_type, data, meta{text} FROM {blobs} WHERE id = ? AND session_id = ?`),
		deleteAll: q(`DELETE FROM {blobs} WHERE session_id = ?`),
	}
}

// PutBlob stores b with its call and returns its id.
func (s *Store[T]) PutBlob(ctx context.Context, b store.Blob) (id int64, err error) {
	if err := checkBlob(&b); err != nil {
		return 0, err
	}
	err = s.cfg.Write.InTx(ctx, func(tx DB) error {
		var last int64
		err := tx.QueryRow(ctx, s.sql.blobs.claim, b.Size(), b.SessionID).Scan(&last)
		// pgx's ErrNoRows is also sql.ErrNoRows.
		if errors.Is(err, sql.ErrNoRows) {
			return noBlobSession
		}
		if err != nil {
			return err
		}
		if b.Seq > last {
			return noBlobCall
		}
		return tx.QueryRow(ctx, s.sql.blobs.insert,
			b.SessionID, b.Seq, b.Kind, b.Revision, b.MediaType, b.Data, text(b.Meta)).Scan(&id)
	})
	if err != nil {
		return 0, failed(err, "the blob could not be stored")
	}
	return id, nil
}

// Blobs lists a session's blobs, without their data, in call order.
func (s *Store[T]) Blobs(ctx context.Context, sessionID string) ([]store.BlobInfo, error) {
	if err := checkID(sessionID); err != nil {
		return nil, err
	}
	var n int
	if err := s.cfg.Read.QueryRow(ctx, s.sql.blobs.exists, sessionID).Scan(&n); err != nil {
		return nil, Fail(err, "the session's blobs could not be listed")
	}
	if n == 0 {
		return nil, noBlobSession
	}
	rows, err := s.cfg.Read.Query(ctx, s.sql.blobs.list, sessionID)
	if err != nil {
		return nil, Fail(err, "the session's blobs could not be listed")
	}
	defer rows.Close()
	var list []store.BlobInfo
	for rows.Next() {
		var x store.BlobInfo
		var meta []byte
		if err := rows.Scan(&x.ID, &x.SessionID, &x.Seq, &x.Kind, &x.Revision, &x.MediaType, &x.Bytes, &meta); err != nil {
			return nil, Fail(err, "the session's blobs could not be listed")
		}
		x.Meta = raw(meta)
		list = append(list, x)
	}
	if err := rows.Err(); err != nil {
		return nil, Fail(err, "the session's blobs could not be listed")
	}
	return list, nil
}

// Blob reads one blob of a session, data included.
func (s *Store[T]) Blob(ctx context.Context, sessionID string, id int64) (store.Blob, error) {
	if err := checkID(sessionID); err != nil {
		return store.Blob{}, err
	}
	var b store.Blob
	var meta []byte
	err := s.cfg.Read.QueryRow(ctx, s.sql.blobs.read, id, sessionID).
		Scan(&b.SessionID, &b.Seq, &b.Kind, &b.Revision, &b.MediaType, &b.Data, &meta)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Blob{}, noBlob
	}
	if err != nil {
		return store.Blob{}, Fail(err, "the blob could not be read")
	}
	b.Meta = raw(meta)
	return b, nil
}
