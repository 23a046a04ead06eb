package calib

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"expmech/algorithms"
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
	mu    sync.Mutex
	m     map[PoissonKey]PoissonResult
	store algorithms.Store // shared beyond this mechanism (UseStore); nil: this cache only
	space string           // who computes, part of the store key
}

// UseStore shares the answers of c through s, under keys that start with space (the
// mechanism's name: two accountants never share a key). Call it before the first Get.
func (c *PoissonCache) UseStore(s algorithms.Store, space string) {
	if c != nil {
		c.store, c.space = s, space
	}
}

// storeKey spells k exactly (floats in the shortest form that round-trips).
func (c *PoissonCache) storeKey(k PoissonKey) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return fmt.Sprintf("%s/poisson-gaussian/v1 q=%s T=%d z=%s epsilon=%s delta=%s relation=%d",
		c.space, f(k.Q), k.T, f(k.Z), f(k.Epsilon), f(k.Delta), k.Relation)
}

// storedPoisson is a PoissonResult without its error (failures are not stored).
type storedPoisson struct{ Z, Lo, Hi, RDP float64 }

// viaStore answers k from the store, computing with f on a miss.
func (c *PoissonCache) viaStore(k PoissonKey, f func() PoissonResult) PoissonResult {
	var r PoissonResult
	computed := false
	b := c.store.Calibration(c.storeKey(k), func() []byte {
		r, computed = f(), true
		if r.Err != nil {
			return nil
		}
		b, err := json.Marshal(storedPoisson{r.Z, r.Lo, r.Hi, r.RDP})
		if err != nil { // ±Inf or NaN: not storable, still the answer
			return nil
		}
		return b
	})
	if computed {
		return r
	}
	var s storedPoisson
	if b == nil || json.Unmarshal(b, &s) != nil {
		return f() // another caller failed, or foreign bytes: compute here
	}
	return PoissonResult{Z: s.Z, Lo: s.Lo, Hi: s.Hi, RDP: s.RDP}
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
	if c.store != nil {
		r = c.viaStore(k, f)
	} else {
		r = f()
	}
	c.mu.Lock()
	c.m[k] = r
	c.mu.Unlock()
	return r
}
