package calib

import (
	"sync"

	"expmech/algorithms/privacy"
)

// PoissonKey identifies one Poisson-subsampled-Gaussian accounting question.
type PoissonKey struct {
	Q        float64
	T        int
	Z        float64 // 0 when calibrating z for (Epsilon, Delta)
	Epsilon  float64
	Delta    float64
	Relation privacy.Relation
}

// PoissonResult is the answer: the calibrated z (if asked), the PLD bracket and the RDP ε.
type PoissonResult struct {
	Z, Lo, Hi, RDP float64
	Err            error
}

// PoissonCache memoises the (slow, data-independent) Poisson accountant per mechanism, so
// that Plan and every trial's Run of one cell calibrate once. Safe for concurrent use; a
// nil *PoissonCache computes every time.
type PoissonCache struct {
	mu sync.Mutex
	m  map[PoissonKey]PoissonResult
}

// NewPoissonCache returns an empty cache.
func NewPoissonCache() *PoissonCache { return &PoissonCache{m: map[PoissonKey]PoissonResult{}} }

// Get returns the cached result for k, computing it with f on a miss (outside the lock;
// a concurrent miss may compute twice, with the same deterministic result).
func (c *PoissonCache) Get(k PoissonKey, f func() PoissonResult) PoissonResult {
	if c == nil {
		return f()
	}
	c.mu.Lock()
	r, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return r
	}
	r = f()
	c.mu.Lock()
	c.m[k] = r
	c.mu.Unlock()
	return r
}
