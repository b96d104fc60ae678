package closeonce

import (
	"sync"
	"testing"
)

func TestBeginTakesOnce(t *testing.T) {
	var mu sync.Mutex
	var closed bool
	live := []string{"a", "b"}
	var took []string
	if !Begin(&mu, &closed, func() { took, live = live, nil }) {
		t.Fatal("the first call did not close")
	}
	if !closed || len(took) != 2 || live != nil {
		t.Fatalf("closed %v, took %v, left %v", closed, took, live)
	}
	if Begin(&mu, &closed, func() { t.Fatal("a later call took again") }) {
		t.Fatal("a later call closed again")
	}
}
