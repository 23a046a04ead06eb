package tuning_test

import (
	"sync"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
	"expmech/algorithms/tuning"
	"expmech/baselines/dpsgd"
)

// countingStore is a calibration store that counts the keys it is asked for.
type countingStore struct {
	mu   sync.Mutex
	keys map[string][]byte
}

func (s *countingStore) Calibration(key string, compute func() []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.keys[key]; ok {
		return b
	}
	b := compute()
	s.keys[key] = b
	return b
}

// TestTunedUsesCalibrationStore: a tuned dp-sgd hands the runner's calibration store (the
// Store of the algorithms.Env its Plan receives) to its grid points, which calibrate
// through it, so cells, shards and reruns share the noise multipliers.
func TestTunedUsesCalibrationStore(t *testing.T) {
	if testing.Short() {
		t.Skip("long: tuned mechanisms with the calibration store")
	}
	f := dpsgd.Factory()
	base, err := f.New(f.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []tuning.Mode{tuning.Oracle, tuning.Private} {
		cfg := tuning.DefaultConfig()
		cfg.Mode = mode
		m, err := tuning.Wrap(base, cfg)
		if err != nil {
			t.Fatal(err)
		}
		s := &countingStore{keys: map[string][]byte{}}
		if _, err := m.Plan(algorithms.Env{Store: s}, mechtest.LowRankConstants(60, 8, 2), mechtest.Budget(1, 1e-5)); err != nil {
			t.Fatalf("%s: Plan: %v", mode, err)
		}
		if len(s.keys) == 0 {
			t.Errorf("%s: no grid point calibrated through the store", mode)
		}
	}
}
