package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
	"github.com/veetbot/veetbrowser/store"
)

// Image is n bytes that begin as mediaType's files do and differ with i.
func Image(mediaType string, n, i int) []byte {
	head := map[string]string{store.MediaPNG: "\x89PNG\r\n\x1a\n", store.MediaJPEG: "\xff\xd8\xff"}[mediaType]
	b := make([]byte, n)
	for k := range b {
		b[k] = byte(k*7 + i)
	}
	copy(b, head)
	return b
}

// Blobs: blobs are stored with their call and read back exactly, listed
// without data; the data bound holds at MaxBlobBytes and refuses one byte
// more; another session's blob, an unknown session or call is not_found;
// a refused write leaves nothing; a blob's bytes count toward its session's
// and a prune removes them with it.
func (s Suite) Blobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := s.open(t, s.Fresh(t))
	now := time.Now()
	for k, id := range []string{"shots", "other"} {
		start := now.Add(time.Duration(k-2) * time.Minute)
		if err := st.CreateSession(ctx, Session(id, start)); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			c := Call(id, i)
			c.StartedAt = start
			if _, err := st.Record(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	bytesOf := func(id string) int64 {
		t.Helper()
		list, err := st.Sessions(ctx, store.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range list {
			if x.ID == id {
				return x.Bytes
			}
		}
		t.Fatalf("no session %q", id)
		return 0
	}
	before := bytesOf("shots")

	small := store.Blob{SessionID: "shots", Seq: 1, Kind: "screenshot", Revision: "r000001", MediaType: store.MediaPNG,
		Data: Image(store.MediaPNG, 5000, 1), Meta: json.RawMessage(`{"masked":["password","card number"]}`)}
	full := store.Blob{SessionID: "shots", Seq: 2, Kind: "screenshot", MediaType: store.MediaJPEG,
		Data: Image(store.MediaJPEG, store.MaxBlobBytes, 2)}
	smallID, err := st.PutBlob(ctx, small)
	if err != nil {
		t.Fatal(err)
	}
	fullID, err := st.PutBlob(ctx, full)
	if err != nil {
		t.Fatalf("a blob of MaxBlobBytes: %v", err)
	}
	if smallID == fullID {
		t.Fatalf("two blobs have the id %d", smallID)
	}
	if got, want := bytesOf("shots"), before+small.Size()+full.Size(); got != want {
		t.Fatalf("the session holds %d bytes after its blobs, want %d", got, want)
	}

	over := full
	over.Data = Image(store.MediaJPEG, store.MaxBlobBytes+1, 3)
	// {"m":"…"} of n bytes.
	meta := func(n int) json.RawMessage { return json.RawMessage(`{"m":"` + strings.Repeat("x", n-8) + `"}`) }
	longMeta := with(small, func(b *store.Blob) { b.Meta = meta(store.MaxBlobMetaBytes + 1) })
	for name, c := range map[string]struct {
		b    store.Blob
		code errcode.Code
	}{
		"data over the bound":   {over, errcode.TooLarge},
		"meta over the bound":   {longMeta, errcode.TooLarge},
		"unknown session":       {with(small, func(b *store.Blob) { b.SessionID = "nope" }), errcode.NotFound},
		"unknown call":          {with(small, func(b *store.Blob) { b.Seq = 3 }), errcode.NotFound},
		"no call":               {with(small, func(b *store.Blob) { b.Seq = 0 }), errcode.InvalidArgument},
		"no kind":               {with(small, func(b *store.Blob) { b.Kind = "" }), errcode.InvalidArgument},
		"no data":               {with(small, func(b *store.Blob) { b.Data = nil }), errcode.InvalidArgument},
		"other media type":      {with(small, func(b *store.Blob) { b.MediaType = "image/gif" }), errcode.InvalidArgument},
		"data not of its type":  {with(small, func(b *store.Blob) { b.MediaType = store.MediaJPEG }), errcode.InvalidArgument},
		"meta not an object":    {with(small, func(b *store.Blob) { b.Meta = json.RawMessage(`["password"]`) }), errcode.InvalidArgument},
		"revision not UTF-8":    {with(small, func(b *store.Blob) { b.Revision = "r\xff" }), errcode.InvalidArgument},
		"revision with a NUL":   {with(small, func(b *store.Blob) { b.Revision = "r\x00" }), errcode.InvalidArgument},
		"meta not JSON (UTF-8)": {with(small, func(b *store.Blob) { b.Meta = json.RawMessage("{\"a\":\"\xff\"}") }), errcode.InvalidArgument},
	} {
		if _, err := st.PutBlob(ctx, c.b); errcode.Of(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	// The meta bound at the bound is taken.
	atBound := with(small, func(b *store.Blob) { b.Meta = meta(store.MaxBlobMetaBytes) })
	metaID, err := st.PutBlob(ctx, atBound)
	if err != nil {
		t.Fatalf("meta of %d bytes: %v", store.MaxBlobMetaBytes, err)
	}
	if got, want := bytesOf("shots"), before+small.Size()+full.Size()+atBound.Size(); got != want {
		t.Fatalf("refused blobs changed the session's bytes: %d, want %d", got, want)
	}

	list, err := st.Blobs(ctx, "shots")
	if err != nil {
		t.Fatal(err)
	}
	want := []store.BlobInfo{
		{ID: smallID, SessionID: "shots", Seq: 1, Kind: "screenshot", Revision: "r000001", MediaType: store.MediaPNG, Bytes: 5000, Meta: small.Meta},
		{ID: metaID, SessionID: "shots", Seq: 1, Kind: "screenshot", Revision: "r000001", MediaType: store.MediaPNG, Bytes: 5000, Meta: atBound.Meta},
		{ID: fullID, SessionID: "shots", Seq: 2, Kind: "screenshot", MediaType: store.MediaJPEG, Bytes: store.MaxBlobBytes},
	}
	if len(list) != len(want) {
		t.Fatalf("%d blobs listed, want %d: %+v", len(list), len(want), list)
	}
	for k := range want {
		g, w := list[k], want[k]
		if g.ID != w.ID || g.SessionID != w.SessionID || g.Seq != w.Seq || g.Kind != w.Kind || g.Revision != w.Revision ||
			g.MediaType != w.MediaType || g.Bytes != w.Bytes || !bytes.Equal(g.Meta, w.Meta) || (g.Meta == nil) != (w.Meta == nil) {
			t.Fatalf("blob %d listed as %+v, want %+v", k, g, w)
		}
	}
	for id, b := range map[int64]store.Blob{smallID: small, fullID: full, metaID: atBound} {
		got, err := st.Blob(ctx, "shots", id)
		if err != nil {
			t.Fatal(err)
		}
		if got.SessionID != b.SessionID || got.Seq != b.Seq || got.Kind != b.Kind || got.Revision != b.Revision ||
			got.MediaType != b.MediaType || !bytes.Equal(got.Data, b.Data) || !bytes.Equal(got.Meta, b.Meta) || (got.Meta == nil) != (b.Meta == nil) {
			t.Fatalf("blob %d read back as %s %d/%q %d bytes, meta %s", id, got.SessionID, got.Seq, got.Kind, len(got.Data), got.Meta)
		}
	}

	if list, err := st.Blobs(ctx, "other"); err != nil || len(list) != 0 {
		t.Fatalf("a session without blobs lists %+v, %v", list, err)
	}
	for name, err := range map[string]error{
		"another session's blob": second(st.Blob(ctx, "other", smallID)),
		"a missing blob":         second(st.Blob(ctx, "shots", fullID+1000)),
		"an unknown session":     second(st.Blob(ctx, "nope", smallID)),
		"blobs of no session":    second(st.Blobs(ctx, "nope")),
	} {
		if errcode.Of(err) != errcode.NotFound {
			t.Errorf("%s: %v, want not_found", name, err)
		}
	}

	// "shots" is older: keeping "other"'s bytes prunes it, blobs and all.
	shotsBytes := bytesOf("shots")
	p, err := st.Prune(ctx, 0, bytesOf("other"))
	if err != nil || p.Sessions != 1 || p.Calls != 2 || p.Blobs != 3 || p.Bytes != shotsBytes {
		t.Fatalf("pruning the session with blobs (%d bytes): %+v, %v", shotsBytes, p, err)
	}
	for _, id := range []int64{smallID, fullID, metaID} {
		if _, err := st.Blob(ctx, "shots", id); errcode.Of(err) != errcode.NotFound {
			t.Fatalf("blob %d outlived its session: %v", id, err)
		}
	}
	// Ids are not reused after a prune.
	again := small
	again.SessionID = "other"
	id, err := st.PutBlob(ctx, again)
	if err != nil {
		t.Fatal(err)
	}
	if id <= max(smallID, fullID, metaID) {
		t.Fatalf("a new blob took the id %d of a pruned one", id)
	}
}

// with is b changed by change.
func with(b store.Blob, change func(*store.Blob)) store.Blob {
	change(&b)
	return b
}

// BenchRecord measures recording one observe call with a ≈ 60 KB canonical
// observation, and reports the bytes the database grew by per call as
// stored measures it after the run.
func BenchRecord(b *testing.B, st store.Store, stored func() int64) {
	ctx := context.Background()
	if err := st.CreateSession(ctx, Session("bench", time.Now())); err != nil {
		b.Fatal(err)
	}
	c := Call("bench", 1)
	before := stored()
	n := 0
	for b.Loop() {
		if _, err := st.Record(ctx, c); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(len(c.Observation)), "observation-bytes")
	b.ReportMetric(float64(stored()-before)/float64(n), "stored-bytes/call")
}
