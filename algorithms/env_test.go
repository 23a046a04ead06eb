package algorithms_test

import (
	"slices"
	"testing"

	"expmech/algorithms"
)

type onceStore map[string][]byte

func (s onceStore) Calibration(key string, compute func() []byte) []byte {
	if b, ok := s[key]; ok {
		return b
	}
	b := compute()
	s[key] = b
	return b
}

// TestEnv: the zero Env computes every calibration where it is asked and runs a loop's
// pieces in order on the caller; an Env with a Store and a Loop goes through them.
func TestEnv(t *testing.T) {
	calls := 0
	compute := func() []byte { calls++; return []byte("1") }
	var zero algorithms.Env
	zero.Calibration("k", compute)
	zero.Calibration("k", compute)
	if calls != 2 {
		t.Errorf("zero Env: %d computations of one key, want 2 (no store)", calls)
	}
	var order []int
	zero.Parallel(4, func(i int) { order = append(order, i) })
	if !slices.Equal(order, []int{0, 1, 2, 3}) {
		t.Errorf("zero Env loop ran %v, want 0..3 in order", order)
	}
	loops := 0
	env := algorithms.Env{Store: onceStore{}, Loop: func(n int, body func(int)) {
		loops++
		for i := n - 1; i >= 0; i-- {
			body(i)
		}
	}}
	calls = 0
	env.Calibration("k", compute)
	if got := string(env.Calibration("k", compute)); got != "1" || calls != 1 {
		t.Errorf("Env with a store: %q after %d computations, want \"1\" after 1", got, calls)
	}
	seen := make([]bool, 3)
	env.Parallel(3, func(i int) { seen[i] = true })
	if loops != 1 || !slices.Equal(seen, []bool{true, true, true}) {
		t.Errorf("Env with a loop: %d loops, pieces %v; want 1 loop running every piece", loops, seen)
	}
}
