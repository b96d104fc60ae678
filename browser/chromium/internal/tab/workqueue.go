package tab

import (
	"context"
	"sync"
)

// WorkQueue hands work from an event listener, which must neither block
// nor issue CDP, to a worker that starts each job in a goroutine of its
// own: no job waits for another.
type WorkQueue struct {
	mu   sync.Mutex
	jobs []func(context.Context) // guarded by mu
	wake chan struct{}           // has room for one wake-up of run
}

// NewWorkQueue returns an empty queue; Run starts its jobs.
func NewWorkQueue() *WorkQueue { return &WorkQueue{wake: make(chan struct{}, 1)} }

// Push queues job for Run; it never blocks.
func (q *WorkQueue) Push(job func(context.Context)) {
	q.mu.Lock()
	q.jobs = append(q.jobs, job)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Run starts the queued jobs under ctx until ctx ends.
func (q *WorkQueue) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		q.mu.Lock()
		jobs := q.jobs
		q.jobs = nil
		q.mu.Unlock()
		for _, job := range jobs {
			go job(ctx)
		}
	}
}
