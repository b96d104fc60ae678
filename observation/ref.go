package observation

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"hash"
	"sync"

	"github.com/veetbot/veetbrowser/errcode"
)

// Kind is the first letter of a reference and says what it names.
type Kind byte

const (
	KindRevision Kind = 'v'
	KindControl  Kind = 'e'
	KindCursor   Kind = 'k'
	KindRegion   Kind = 'g'
	KindTab      Kind = 't' // a tab of the session (tool version 1.8.0)
)

const (
	tagLen = 3 // session tag: tells a foreign session's reference apart
	macLen = 6 // truncated HMAC-SHA256: 48 bits against forgery
)

var refEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// Keys mint and verify the references of one session. A reference encodes
// (kind, session tag, revision, index) with a MAC under the session's secret,
// so a caller can neither edit nor forge one and it names no DOM detail.
type Keys struct {
	tag    [tagLen]byte
	secret [32]byte
	// One HMAC for every MAC of the session: an observation mints one per
	// control and region, and a new HMAC per MAC was most of a mint's
	// time and allocations. Reset keeps the keyed state.
	mu  sync.Mutex
	h   hash.Hash
	sum [sha256.Size]byte // the HMAC's scratch: its kind byte, then its sum
}

// NewKeys returns fresh keys for a new session.
func NewKeys() *Keys {
	k := new(Keys)
	rand.Read(k.tag[:])
	rand.Read(k.secret[:])
	return k
}

// Mint returns the reference of kind for (revision, index).
func (k *Keys) Mint(kind Kind, revision uint64, index uint64) string {
	buf := make([]byte, 0, tagLen+2*binary.MaxVarintLen64+macLen)
	// Varying parts first, so two references differ early to a reader.
	buf = binary.AppendUvarint(buf, revision)
	buf = binary.AppendUvarint(buf, index)
	buf = append(buf, k.tag[:]...)
	mac := k.mac(kind, buf)
	buf = append(buf, mac[:]...)
	// Encoded in place after the kind: one allocation, the string, where
	// string(kind) + EncodeToString took three, once per control and region.
	var ref [1 + (tagLen+2*binary.MaxVarintLen64+macLen+4)/5*8]byte
	ref[0] = byte(kind)
	n := refEncoding.EncodedLen(len(buf))
	refEncoding.Encode(ref[1:1+n], buf)
	return string(ref[:1+n])
}

// mac is the MAC of kind and payload, returned by value: a slice of the
// scratch would outlive the lock.
func (k *Keys) mac(kind Kind, payload []byte) (mac [macLen]byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.h == nil {
		k.h = hmac.New(sha256.New, k.secret[:])
	}
	k.h.Reset()
	k.sum[0] = byte(kind)
	k.h.Write(k.sum[:1])
	k.h.Write(payload)
	copy(mac[:], k.h.Sum(k.sum[:0]))
	return mac
}

// Parse verifies ref as a reference of kind minted by these keys and returns
// its revision and index. Errors: unknown_reference for a malformed or forged
// reference, foreign_reference for one of another session, invalid_argument
// for a valid reference of another kind.
func (k *Keys) Parse(kind Kind, ref string) (revision, index uint64, err error) {
	if len(ref) < 2 || len(ref) > 64 {
		return 0, 0, errcode.New(errcode.UnknownReference, "the reference is malformed; use a reference from the newest observation")
	}
	got := Kind(ref[0])
	raw, derr := refEncoding.DecodeString(ref[1:])
	// Only the canonical spelling verifies: base32's unused trailing bits
	// must not make a second, edited spelling of the same reference.
	if derr != nil || len(raw) < tagLen+2+macLen || refEncoding.EncodeToString(raw) != ref[1:] {
		return 0, 0, errcode.New(errcode.UnknownReference, "the reference is malformed; use a reference from the newest observation")
	}
	payload, sum := raw[:len(raw)-macLen], raw[len(raw)-macLen:]
	if !hmac.Equal(payload[len(payload)-tagLen:], k.tag[:]) {
		return 0, 0, errcode.New(errcode.ForeignReference, "the reference belongs to another session")
	}
	if mac := k.mac(got, payload); !hmac.Equal(sum, mac[:]) {
		return 0, 0, errcode.New(errcode.UnknownReference, "the reference is not one this session issued")
	}
	if got != kind {
		return 0, 0, errcode.New(errcode.InvalidArgument, "a %s reference cannot be used as a %s reference", kindName(got), kindName(kind))
	}
	rest := payload[:len(payload)-tagLen]
	revision, n := binary.Uvarint(rest)
	if n <= 0 {
		return 0, 0, errcode.New(errcode.UnknownReference, "the reference is malformed")
	}
	index, m := binary.Uvarint(rest[n:])
	if m <= 0 || n+m != len(rest) {
		return 0, 0, errcode.New(errcode.UnknownReference, "the reference is malformed")
	}
	return revision, index, nil
}

func kindName(k Kind) string {
	switch k {
	case KindRevision:
		return "revision"
	case KindControl:
		return "control"
	case KindCursor:
		return "cursor"
	case KindRegion:
		return "region (evidence only)"
	case KindTab:
		return "tab"
	case KindNext:
		return "reading continuation"
	case KindFind:
		return "find continuation"
	}
	return "unknown"
}

// Check refuses a request that gives both continuations: an observation
// continues from at most one of after and cursor.
func (r Request) Check() error {
	if r.After != "" && r.Cursor != "" {
		return errcode.New(errcode.InvalidArgument, "give at most one of after and cursor")
	}
	if r.Focus != "" && r.Focus != FocusMain {
		return errcode.New(errcode.InvalidArgument, "focus must be \"main\"")
	}
	if r.Focus != "" && (r.After != "" || r.Cursor != "") {
		return errcode.New(errcode.InvalidArgument, "focus starts a reading; a continuation carries its own order")
	}
	return nil
}

// Compact references (tool version 1.9.0). A reference is only ever good
// for the newest revision of its session, so a view can leave out what
// every reference of that revision shares: the revision, and all but the
// first byte of the session tag. A compact reference is the kind, the
// index, that tag byte and the full reference's own MAC, which still covers
// the revision and the whole tag: 14 characters where the full one has
// about 21, and the same 48 bits against forgery. The tag byte tells
// another session's reference apart (foreign_reference) from an older
// revision's (stale_reference), as the full form does, but for one
// reference in 256, which is then refused as stale.

// compactMax is the longest raw compact reference: an index of up to three
// varint bytes (below 2^21; every index of an observation is), the tag
// byte and the MAC. Every full reference is longer (revision, index, the
// whole tag and the MAC).
const compactMax = 3 + 1 + macLen

// CompactRef is the compact spelling of ref, a reference or a reading
// continuation (NextKey.Mint) minted by any keys: its fields after the
// revision, the first byte of its session tag, then its MAC. A string that
// is not one is returned unchanged.
func CompactRef(ref string) string {
	if len(ref) < 2 {
		return ref
	}
	// Decoded and encoded in stack buffers for any reference this package
	// mints (≤ 64 characters): a view and the session compact every
	// control's reference, and each took four allocations.
	var buf [40]byte
	raw := buf[:0]
	if m := refEncoding.DecodedLen(len(ref) - 1); m > len(buf) {
		raw = make([]byte, 0, m)
	}
	n, err := refEncoding.Decode(raw[:cap(raw)], []byte(ref[1:]))
	raw = raw[:n]
	if err != nil || len(raw) <= compactMax {
		return ref
	}
	rest, tag := raw[:len(raw)-macLen-tagLen], raw[len(raw)-macLen-tagLen]
	if _, n := binary.Uvarint(rest); n > 0 && n < len(rest) {
		var cbuf [40]byte
		compact := append(append(cbuf[:0], rest[n:]...), tag)
		compact = append(compact, raw[len(raw)-macLen:]...)
		var out [1 + 64]byte
		enc := out[:0]
		if m := 1 + refEncoding.EncodedLen(len(compact)); m <= len(out) {
			enc = out[:m]
		} else {
			enc = make([]byte, m)
		}
		enc[0] = ref[0]
		refEncoding.Encode(enc[1:], compact)
		return string(enc)
	}
	return ref
}

// ParseNewest is Parse for a reference that may be compact: a compact
// reference is read as one of revision newest. One whose tag byte is not
// this session's is foreign_reference; one that does not verify against
// the newest revision is stale_reference (it may be of an older
// observation) rather than unknown_reference.
func (k *Keys) ParseNewest(kind Kind, ref string, newest uint64) (revision, index uint64, err error) {
	if len(ref) < 2 || len(ref) > 64 {
		return k.Parse(kind, ref)
	}
	raw, derr := refEncoding.DecodeString(ref[1:])
	if derr != nil || len(raw) > compactMax || len(raw) <= 1+macLen || refEncoding.EncodeToString(raw) != ref[1:] {
		return k.Parse(kind, ref)
	}
	idx, n := binary.Uvarint(raw)
	if n != len(raw)-1-macLen {
		return 0, 0, errcode.New(errcode.UnknownReference, "the reference is malformed; use a reference from the newest observation")
	}
	if raw[n] != k.tag[0] {
		return 0, 0, errcode.New(errcode.ForeignReference, "the reference belongs to another session")
	}
	payload := binary.AppendUvarint(nil, newest)
	payload = binary.AppendUvarint(payload, idx)
	payload = append(payload, k.tag[:]...)
	if mac := k.mac(Kind(ref[0]), payload); !hmac.Equal(raw[n+1:], mac[:]) {
		return 0, 0, errcode.New(errcode.StaleReference, "the reference is not one of the newest observation; use the newest observation's references")
	}
	return k.Parse(kind, ref[:1]+refEncoding.EncodeToString(append(payload, raw[n+1:]...)))
}
