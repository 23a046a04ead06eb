package check

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ForEach calls f(0), …, f(n−1) on min(workers, n) goroutines (workers ≤ 0: one per
// CPU) and returns when all have returned: the loop the checks and the figures of an
// analysis run on, each result in its own slot, so that the output does not depend on
// workers.
func ForEach(workers, n int, f func(i int)) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
