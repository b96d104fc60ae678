package chromium

import (
	"context"
	"sync"
)

// workQueue hands work from an event listener, which must neither block
// nor issue CDP, to a worker that starts each job in a goroutine of its
// own: no job waits for another.
type workQueue struct {
	mu   sync.Mutex
	jobs []func(context.Context)
	wake chan struct{} // has room for one wake-up of run
}

func newWorkQueue() *workQueue { return &workQueue{wake: make(chan struct{}, 1)} }

// push queues job for run; it never blocks.
func (q *workQueue) push(job func(context.Context)) {
	q.mu.Lock()
	q.jobs = append(q.jobs, job)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// run starts the queued jobs under ctx until ctx ends.
func (q *workQueue) run(ctx context.Context) {
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
