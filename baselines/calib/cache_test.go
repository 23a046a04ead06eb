package calib

import (
	"errors"
	"math"
	"sync"
	"testing"
)

// mapStore is a Store in memory (the runner's is on disk).
type mapStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *mapStore) Calibration(key string, compute func() []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.m[key]; ok {
		return b
	}
	b := compute()
	if b != nil {
		s.m[key] = b
	}
	return b
}

// TestPoissonCacheStore: an answer read back from the store is bit for bit the computed
// one (so a row does not depend on whether its calibration was cached), two mechanisms
// share it, another name space does not, and a failure is not stored.
func TestPoissonCacheStore(t *testing.T) {
	st := &mapStore{m: map[string][]byte{}}
	k := PoissonKey{Q: 0.64, T: 2875, Epsilon: 1, Delta: 1e-5}
	want := PoissonResult{Z: 1.0 / 3, Lo: math.Nextafter(0.9, 0), Hi: 0.1 + 0.2, RDP: 1e-300}
	calls := 0
	f := func() PoissonResult { calls++; return want }
	a, b, other := NewPoissonCache("dp-sgd"), NewPoissonCache("dp-sgd"), NewPoissonCache("noisy-sgd-bst14")
	if got := a.Get(st, k, f); got != want {
		t.Errorf("computed: got %+v, want %+v", got, want)
	}
	if got := b.Get(st, k, f); got != want || calls != 1 {
		t.Errorf("from the store: got %+v after %d computations, want %+v bit for bit after 1", got, calls, want)
	}
	other.Get(st, k, f)
	if calls != 2 {
		t.Errorf("another name space: %d computations, want 2", calls)
	}
	bad := PoissonKey{Q: 0.5, T: 1, Epsilon: 1, Delta: 1e-5}
	fail := func() PoissonResult { calls++; return PoissonResult{Err: errors.New("no")} }
	if r := a.Get(st, bad, fail); r.Err == nil {
		t.Errorf("failure: got %+v, want its error", r)
	}
	if r := b.Get(st, bad, fail); r.Err == nil || calls != 4 {
		t.Errorf("failure again: got %+v after %d computations, want the error recomputed (4)", r, calls)
	}
	inf := PoissonKey{Q: 0.5, T: 2, Epsilon: 1, Delta: 1e-5} // ±Inf does not encode: computed, not stored
	if r := a.Get(st, inf, func() PoissonResult { return PoissonResult{Z: 1, RDP: math.Inf(1)} }); !math.IsInf(r.RDP, 1) {
		t.Errorf("infinite RDP: got %+v", r)
	}
}
