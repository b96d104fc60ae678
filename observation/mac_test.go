package observation

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
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
