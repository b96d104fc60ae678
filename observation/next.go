package observation

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/veetbot/veetbrowser/errcode"
)

// Continuations of tool version 1.6.0, minted by the projection under a
// revision's NextKey.
const (
	// KindNext is a reading continuation: one cursor that resumes every
	// stream of an observation (controls, regions, readable text) where the
	// model view that carries it stopped.
	KindNext Kind = 'n'
	// KindFind continues a find with the matches after those a view showed.
	KindFind Kind = 'f'
)

// nextKeyLen is the length of a revision's continuation key.
const nextKeyLen = 16

// NextKey mints the reading continuations of one revision. Where a view
// stops is decided by the projection, after the observation is made, so
// the projection mints the continuation; it gets a key good for that one
// revision only, derived from the session's secret, never the secret
// itself. The artifact record keeps it so that replay mints the same bytes:
// it authorizes nothing the record's own references do not, since a
// continuation is refused once its revision is not the newest.
type NextKey struct {
	Revision uint64
	Tag      [tagLen]byte
	Key      [nextKeyLen]byte
}

// NextKey returns the continuation key of revision.
func (k *Keys) NextKey(revision uint64) NextKey {
	nk := NextKey{Revision: revision, Tag: k.tag}
	h := hmac.New(sha256.New, k.secret[:])
	h.Write([]byte{byte(KindNext)})
	h.Write(binary.AppendUvarint(nil, revision))
	copy(nk.Key[:], h.Sum(nil))
	return nk
}

// Mint returns the continuation of kind that carries fields, bound to the
// key's revision.
func (nk NextKey) Mint(kind Kind, fields ...uint64) string {
	buf := binary.AppendUvarint(nil, nk.Revision)
	for _, f := range fields {
		buf = binary.AppendUvarint(buf, f)
	}
	buf = append(buf, nk.Tag[:]...)
	buf = append(buf, nk.mac(kind, buf)...)
	return string(kind) + refEncoding.EncodeToString(buf)
}

func (nk NextKey) mac(kind Kind, payload []byte) []byte {
	h := hmac.New(sha256.New, nk.Key[:])
	h.Write([]byte{byte(kind)})
	h.Write(payload)
	return h.Sum(nil)[:macLen]
}

// MaxNextLen bounds the length of a reading or find continuation a caller
// may pass back.
const MaxNextLen = 96

// ParseNext verifies a continuation of kind minted under these keys and
// returns its revision and its n fields. Errors as Parse.
func (k *Keys) ParseNext(kind Kind, ref string, n int) (revision uint64, fields []uint64, err error) {
	revision, fields, err = k.parseNext(kind, ref)
	if err == nil && len(fields) != n {
		return 0, nil, errcode.New(errcode.UnknownReference, "the cursor is malformed; use the next of the newest view")
	}
	return revision, fields, err
}

// parseNext is ParseNext for any number of fields.
func (k *Keys) parseNext(kind Kind, ref string) (revision uint64, fields []uint64, err error) {
	malformed := errcode.New(errcode.UnknownReference, "the cursor is malformed; use the next of the newest view")
	if len(ref) < 2 || len(ref) > MaxNextLen || Kind(ref[0]) != kind {
		return 0, nil, malformed
	}
	raw, derr := refEncoding.DecodeString(ref[1:])
	if derr != nil || len(raw) < tagLen+1+macLen || refEncoding.EncodeToString(raw) != ref[1:] {
		return 0, nil, malformed
	}
	payload, sum := raw[:len(raw)-macLen], raw[len(raw)-macLen:]
	if !hmac.Equal(payload[len(payload)-tagLen:], k.tag[:]) {
		return 0, nil, errcode.New(errcode.ForeignReference, "the cursor belongs to another session")
	}
	rest := payload[:len(payload)-tagLen]
	revision, m := binary.Uvarint(rest)
	if m <= 0 {
		return 0, nil, malformed
	}
	if !hmac.Equal(sum, k.NextKey(revision).mac(kind, payload)) {
		return 0, nil, errcode.New(errcode.UnknownReference, "the cursor is not one this session issued")
	}
	rest = rest[m:]
	for len(rest) > 0 {
		f, m := binary.Uvarint(rest)
		if m <= 0 {
			return 0, nil, malformed
		}
		fields = append(fields, f)
		rest = rest[m:]
	}
	return revision, fields, nil
}

// nextKeyJSON is a NextKey as the artifact record keeps it.
type nextKeyJSON struct {
	Revision uint64 `json:"revision"`
	Tag      []byte `json:"tag"`
	Key      []byte `json:"key"`
}

// MarshalJSON encodes the key for the artifact record.
func (nk NextKey) MarshalJSON() ([]byte, error) {
	return json.Marshal(nextKeyJSON{Revision: nk.Revision, Tag: nk.Tag[:], Key: nk.Key[:]})
}

// UnmarshalJSON decodes a recorded key.
func (nk *NextKey) UnmarshalJSON(b []byte) error {
	var j nextKeyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if len(j.Tag) != tagLen || len(j.Key) != nextKeyLen {
		return fmt.Errorf("a continuation key of %d and %d bytes", len(j.Tag), len(j.Key))
	}
	nk.Revision = j.Revision
	copy(nk.Tag[:], j.Tag)
	copy(nk.Key[:], j.Key)
	return nil
}

// Streams says where a reading continuation resumes each stream of the
// revision it is bound to.
type Streams struct {
	Controls ControlsFrom
	// Control is the index of the control to continue after (ControlsAfter).
	Control int
	// Region is the index, in the revision's window, of the first region
	// not yet shown; Text the first text part not wholly shown, of which
	// TextUnits UTF-16 units were. -1: the stream ended.
	Region, Text, TextUnits int
	// Focus is the reading order (tool version 1.9.0): FocusNone, document
	// order, is minted as 1.6.0 has it; the others add a field.
	Focus Phase
}

// Phase is where a main-first reading is (docs/reading.md).
type Phase uint64

const (
	FocusNone      Phase = iota // document order
	FocusMainText               // the main content's text, at Text/TextUnits
	FocusRestStart              // the rest of the page, from its start: every stream fresh
	FocusRestOn                 // the rest of the page, each stream where the fields say
)

// ControlsFrom is where the control stream of a reading continuation
// resumes.
type ControlsFrom uint64

const (
	ControlsEnded  ControlsFrom = iota // every control was shown
	ControlsAfter                      // right after control Streams.Control
	ControlsCursor                     // the revision's own cursor: the next candidate window
)

// MintStreams returns the reading continuation of s.
func (nk NextKey) MintStreams(s Streams) string {
	f := []uint64{uint64(s.Controls), uint64(s.Control), uint64(s.Region + 1), uint64(s.Text + 1), uint64(s.TextUnits)}
	if s.Focus != FocusNone {
		f = append(f, uint64(s.Focus))
	}
	return nk.Mint(KindNext, f...)
}

// ParseStreams verifies a reading continuation and returns its revision and
// streams. Errors as Parse.
func (k *Keys) ParseStreams(ref string) (revision uint64, s Streams, err error) {
	revision, f, err := k.parseNext(KindNext, ref)
	if err == nil && len(f) != 5 && len(f) != 6 {
		err = errcode.New(errcode.UnknownReference, "the cursor is malformed; use the next of the newest view")
	}
	if err != nil {
		return 0, Streams{}, err
	}
	focus := FocusNone
	if len(f) == 6 {
		if focus = Phase(f[5]); focus == FocusNone || focus > FocusRestOn {
			return 0, Streams{}, errcode.New(errcode.UnknownReference, "the cursor is malformed; use the next of the newest view")
		}
	}
	const most = 1 << 30 // every field is a count within one observation
	for _, v := range f {
		if v > most {
			return 0, Streams{}, errcode.New(errcode.UnknownReference, "the cursor is malformed; use the next of the newest view")
		}
	}
	if ControlsFrom(f[0]) > ControlsCursor {
		return 0, Streams{}, errcode.New(errcode.UnknownReference, "the cursor is malformed; use the next of the newest view")
	}
	return revision, Streams{Controls: ControlsFrom(f[0]), Control: int(f[1]), Region: int(f[2]) - 1, Text: int(f[3]) - 1, TextUnits: int(f[4]), Focus: focus}, nil
}

// ParseStreamsNewest is ParseStreams for a continuation that may be
// compact (CompactRef: tool version 1.9.0's views), read as one of
// revision newest. A compact one that does not verify against the newest
// revision is stale_reference, as a compact reference is.
func (k *Keys) ParseStreamsNewest(ref string, newest uint64) (revision uint64, s Streams, err error) {
	body, tag, sum, ok := compactParts(ref)
	if !ok {
		return k.ParseStreams(ref)
	}
	if tag != k.tag[0] {
		if revision, s, err = k.ParseStreams(ref); err == nil {
			return revision, s, nil // a full one that happens to read as compact too
		}
		return 0, Streams{}, errcode.New(errcode.ForeignReference, "the cursor belongs to another session")
	}
	payload := append(binary.AppendUvarint(nil, newest), body...)
	payload = append(payload, k.tag[:]...)
	if hmac.Equal(sum, k.NextKey(newest).mac(Kind(ref[0]), payload)) {
		return k.ParseStreams(ref[:1] + refEncoding.EncodeToString(append(payload, sum...)))
	}
	if revision, s, err = k.ParseStreams(ref); err == nil {
		return revision, s, nil // a full one that happens to read as compact too
	}
	return 0, Streams{}, errcode.New(errcode.StaleReference, "the cursor is not the newest view's next; use the next of the newest view")
}

// compactParts splits a compact reading continuation (five fields, six
// with a reading order) into its fields' bytes, its session tag byte and
// its MAC (CompactRef).
func compactParts(ref string) (body []byte, tag byte, sum []byte, ok bool) {
	if len(ref) < 2 || len(ref) > MaxNextLen || Kind(ref[0]) != KindNext {
		return nil, 0, nil, false
	}
	raw, err := refEncoding.DecodeString(ref[1:])
	if err != nil || len(raw) < 5+1+macLen || refEncoding.EncodeToString(raw) != ref[1:] {
		return nil, 0, nil, false
	}
	body, tag, sum = raw[:len(raw)-1-macLen], raw[len(raw)-1-macLen], raw[len(raw)-macLen:]
	n := 0
	for rest := body; len(rest) > 0; n++ {
		_, m := binary.Uvarint(rest)
		if m <= 0 {
			return nil, 0, nil, false
		}
		rest = rest[m:]
	}
	return body, tag, sum, n == 5 || n == 6
}
