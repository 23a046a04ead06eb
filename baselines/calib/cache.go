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
	Err            error `json:"-"` // failures are not stored
}

// PoissonZ is the noise multiplier z of T Poisson(q)-subsampled Gaussian steps calibrated
// to b (privacy.CalibratePoissonZ: the smallest z whose PLD upper ε at δ is ≤ ε).
func PoissonZ(q float64, T int, b algorithms.Budget) PoissonResult {
	z, err := privacy.CalibratePoissonZ(q, T, b.Epsilon, b.Delta, b.Relation)
	if err != nil {
		return PoissonResult{Err: fmt.Errorf("calibrate z(q=%v, T=%d): %w", q, T, err)}
	}
	return PoissonResult{Z: z}
}

// PoissonEps re-accounts T such steps at z under b.Relation: the PLD bracket and the RDP ε
// at δ = b.Delta. An accountant's error is wrapped by the caller's name for it, pld or rdp.
func PoissonEps(q, z float64, T int, b algorithms.Budget, pld, rdp string) PoissonResult {
	lo, hi, err := privacy.PLDBracket(q, z, T, b.Delta, b.Relation)
	if err != nil {
		return PoissonResult{Err: fmt.Errorf("%s: %w", pld, err)}
	}
	eps, err := privacy.EpsPoissonGaussianRDP(q, z, T, b.Delta, b.Relation)
	if err != nil {
		return PoissonResult{Err: fmt.Errorf("%s: %w", rdp, err)}
	}
	return PoissonResult{Z: z, Lo: lo, Hi: hi, RDP: eps}
}

// PoissonCache memoises the (slow, data-independent) Poisson accountant of one mechanism
// and the grid points tuning derives from it (WithKnobs shares the cache). It is the one
// in-process memo a plan does not replace: the tuning's Rényi curve (RDP) asks, at a
// budget rather than with a plan, for what the grid point's Plan computed. Answers also go through the runner's store
// (algorithms.Store) when a Get is handed one, which keeps them across cells and runs but
// costs a hash and a decode per question. Safe for concurrent use; a nil *PoissonCache
// computes every time.
type PoissonCache struct {
	m     sync.Map // PoissonKey → PoissonResult
	space string   // who computes, part of the store key
}

// storeKey spells k exactly (floats in the shortest form that round-trips).
func (c *PoissonCache) storeKey(k PoissonKey) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return fmt.Sprintf("%s/poisson-gaussian/v1 q=%s T=%d z=%s epsilon=%s delta=%s relation=%d",
		c.space, f(k.Q), k.T, f(k.Z), f(k.Epsilon), f(k.Delta), k.Relation)
}

// viaStore answers k from the store, computing with f on a miss.
func (c *PoissonCache) viaStore(s algorithms.Store, k PoissonKey, f func() PoissonResult) PoissonResult {
	var r PoissonResult
	computed := false
	b := s.Calibration(c.storeKey(k), func() []byte {
		r, computed = f(), true
		if r.Err != nil {
			return nil
		}
		b, err := json.Marshal(r)
		if err != nil { // ±Inf or NaN: not storable, still the answer
			return nil
		}
		return b
	})
	if computed {
		return r
	}
	var sp PoissonResult
	if b == nil || json.Unmarshal(b, &sp) != nil {
		return f() // another caller failed, or foreign bytes: compute here
	}
	return sp
}

// NewPoissonCache returns an empty cache whose store keys start with space (the
// mechanism's name: two accountants never share a key).
func NewPoissonCache(space string) *PoissonCache {
	return &PoissonCache{space: space}
}

// Get returns the cached result for k; on a miss it asks s (nil: none), which computes
// with f on its own miss (a concurrent miss may compute twice, with the same
// deterministic result).
func (c *PoissonCache) Get(s algorithms.Store, k PoissonKey, f func() PoissonResult) PoissonResult {
	if c == nil {
		return f()
	}
	if r, ok := c.m.Load(k); ok {
		return r.(PoissonResult)
	}
	var r PoissonResult
	if s != nil {
		r = c.viaStore(s, k, f)
	} else {
		r = f()
	}
	c.m.Store(k, r)
	return r
}

// EpsCache memoises Eps(s, δ) for one mechanism and the grid points tuning derives from
// it (WithKnobs shares it). Its Plan and every Run of that plan (one per trial) spend the
// same GDP parameter s at the same δ, and the root-find behind Eps (privacy.EpsForSDelta,
// on Balle–Wang 2018 Thm 8's curve) was a fifth of the audit's CPU when each trial redid
// it. Eps is deterministic, so a memoised ε is the computed one bit for bit. Safe for
// concurrent use; a nil *EpsCache computes every time.
type EpsCache struct{ m sync.Map } // [2]float64{s, δ} → ε

// NewEpsCache returns an empty cache.
func NewEpsCache() *EpsCache { return &EpsCache{} }

// Spend is Spend(r, s, delta) with the ε memoised (errors are not).
func (c *EpsCache) Spend(r *algorithms.Record, s, delta float64) error {
	if c == nil {
		return Spend(r, s, delta)
	}
	k := [2]float64{s, delta}
	if e, ok := c.m.Load(k); ok {
		r.GDPS, r.EpsilonSpent = s, e.(float64)
		return nil
	}
	if err := Spend(r, s, delta); err != nil {
		return err
	}
	c.m.Store(k, r.EpsilonSpent)
	return nil
}
