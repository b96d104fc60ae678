package observation

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"sync"
	"testing"
)

// TestMACIsAFreshHMAC: the session's reused HMAC gives every reference the
// MAC a new HMAC under the secret gives, in any order and from goroutines
// at once.
func TestMACIsAFreshHMAC(t *testing.T) {
	k := NewKeys()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				kind := []Kind{KindRevision, KindControl, KindCursor, KindRegion, KindTab}[i%5]
				payload := binary.AppendUvarint(nil, uint64(g*1000+i))
				payload = binary.AppendUvarint(payload, uint64(i*i))
				payload = append(payload, k.tag[:]...)
				h := hmac.New(sha256.New, k.secret[:])
				h.Write([]byte{byte(kind)})
				h.Write(payload)
				if want, got := h.Sum(nil)[:macLen], k.mac(kind, payload); !hmac.Equal(want, got[:]) {
					t.Errorf("mac(%c, %x) = %x, want %x", kind, payload, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// compactRefBefore is CompactRef as it was written first, with
// DecodeString and EncodeToString: the reference CompactRef must equal.
func compactRefBefore(ref string) string {
	if len(ref) < 2 {
		return ref
	}
	raw, err := refEncoding.DecodeString(ref[1:])
	if err != nil || len(raw) <= compactMax {
		return ref
	}
	rest, tag := raw[:len(raw)-macLen-tagLen], raw[len(raw)-macLen-tagLen]
	if _, n := binary.Uvarint(rest); n > 0 && n < len(rest) {
		compact := append(append([]byte(nil), rest[n:]...), tag)
		return ref[:1] + refEncoding.EncodeToString(append(compact, raw[len(raw)-macLen:]...))
	}
	return ref
}

// TestCompactRefAsBefore: CompactRef spells every reference, continuation
// and other string as its first, allocating version did.
func TestCompactRefAsBefore(t *testing.T) {
	k := NewKeys()
	var refs []string
	for _, rev := range []uint64{0, 1, 127, 128, 1 << 20, 1<<64 - 1} {
		for _, idx := range []uint64{0, 1, 300, 1 << 21, 1<<64 - 1} {
			refs = append(refs, k.Mint(KindControl, rev, idx), k.Mint(KindRegion, rev, idx),
				k.NextKey(rev).Mint(KindNext, idx, idx/2, 7))
		}
	}
	long := k.NextKey(1<<64-1).Mint(KindNext, 1<<64-1, 1<<64-1, 1<<64-1, 1<<64-1, 1<<64-1)
	refs = append(refs, "", "e", "e!", "eaaaa", "e"+long[1:]+long[1:], long, "x"+strings.Repeat("a", 200))
	for _, r := range refs {
		if got, want := CompactRef(r), compactRefBefore(r); got != want {
			t.Errorf("CompactRef(%q) = %q, want %q", r, got, want)
		}
	}
}

func FuzzCompactRef(f *testing.F) {
	f.Add(NewKeys().Mint(KindControl, 5, 9))
	f.Add("eaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	f.Fuzz(func(t *testing.T, ref string) {
		if got, want := CompactRef(ref), compactRefBefore(ref); got != want {
			t.Fatalf("CompactRef(%q) = %q, want %q", ref, got, want)
		}
	})
}
