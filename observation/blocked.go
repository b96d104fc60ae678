package observation

import "sync"

// MaxBlockedOrigins bounds the origins a Blocked record lists; the requests
// to the others are counted together (tool version 1.9.0, containment).
const MaxBlockedOrigins = 16

// Blocked is what an observation says of the requests the session's pages
// made since the previous observation that were stopped before they left
// the browser: by the destination rules, or under containment to an origin
// outside the grant (docs/navigation.md). Total counts them all; Origins
// lists at most MaxBlockedOrigins origins with their counts, the first ones
// met; OtherOrigins and OtherRequests count the rest.
type Blocked struct {
	Total         int             `json:"total"`
	Origins       []BlockedOrigin `json:"origins"`
	OtherOrigins  int             `json:"other_origins,omitempty"`
	OtherRequests int             `json:"other_requests,omitempty"`
}

// BlockedOrigin is one origin of Blocked and how many of its requests were
// stopped.
type BlockedOrigin struct {
	Origin string `json:"origin"`
	Count  int    `json:"count"`
}

// BlockedTally accumulates blocked requests within the record's bound: it
// keeps at most MaxBlockedOrigins origins, and of the others only which
// they are up to a bound of their own, so a page that asks for a million
// origins costs a fixed amount. The zero value is empty; it is safe for
// concurrent use (every tab of a session adds to one).
type BlockedTally struct {
	mu      sync.Mutex
	total   int
	listed  map[string]int
	order   []string
	others  map[string]bool // origins past the listed ones, at most maxOtherOrigins
	othersN int             // others past that bound, counted once per request
	otherRq int
}

// maxOtherOrigins bounds the distinct unlisted origins the tally tells
// apart; past it each request counts as one more origin.
const maxOtherOrigins = 1024

// Add counts one blocked request to origin.
func (b *BlockedTally) Add(origin string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total++
	if _, ok := b.listed[origin]; ok {
		b.listed[origin]++
		return
	}
	if len(b.order) < MaxBlockedOrigins {
		if b.listed == nil {
			b.listed = make(map[string]int)
		}
		b.listed[origin] = 1
		b.order = append(b.order, origin)
		return
	}
	b.otherRq++
	if b.others[origin] {
		return
	}
	if len(b.others) < maxOtherOrigins {
		if b.others == nil {
			b.others = make(map[string]bool)
		}
		b.others[origin] = true
		return
	}
	b.othersN++
}

// Take returns the record of what was counted, nil if nothing, and empties
// the tally.
func (b *BlockedTally) Take() *Blocked {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total == 0 {
		return nil
	}
	rec := &Blocked{Total: b.total, OtherOrigins: len(b.others) + b.othersN, OtherRequests: b.otherRq}
	for _, o := range b.order {
		rec.Origins = append(rec.Origins, BlockedOrigin{Origin: o, Count: b.listed[o]})
	}
	b.total, b.listed, b.order, b.others, b.othersN, b.otherRq = 0, nil, nil, nil, 0, 0
	return rec
}
