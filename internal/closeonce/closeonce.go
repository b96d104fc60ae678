// Package closeonce is the start of a Close that may be called more than
// once, by several goroutines: the first call marks its owner closed and
// takes what is live, under the owner's mutex, so that nothing can join
// what it took; later calls find it closed and have nothing to do.
package closeonce

import "sync"

// Begin marks *closed under mu and runs take, still under mu, when this
// call is the one that closed it; it reports whether it was.
func Begin(mu *sync.Mutex, closed *bool, take func()) bool {
	mu.Lock()
	defer mu.Unlock()
	if *closed {
		return false
	}
	*closed = true
	take()
	return true
}
