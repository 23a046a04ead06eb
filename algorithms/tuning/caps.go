package tuning

import (
	"expmech/algorithms"
	"expmech/problems"
)

// Capabilities is the tuned mechanism's table (algorithms.As; the wrapper exposes its base
// with Unwrap): the constants check is inherited (every grid point runs the base's
// configuration, so a base that cannot hold on the constants refuses the tuned spec in
// every mode), the referee and the reduced path are overridden (reduce.go; the complement
// is radial), and the base's accountant, Rényi curve and knobs are blocked (Blocked): they
// describe or re-tune one run, not K runs and a selection. The runner's services arrive as
// algorithms.Env, passed through to the base, not as capabilities. DESIGN.md "Optional
// capabilities" has the table; the mechanism kit (mechtest.Wrapper) checks that the
// wrapper behaves as it says.
func Capabilities() []algorithms.Capability {
	return []algorithms.Capability{
		algorithms.Cap[algorithms.ConstantsChecker]("ConstantsChecker", algorithms.Inherited, "the grid points run the base's configuration; a base that cannot hold refuses the tuned spec"),
		algorithms.Cap[algorithms.Refereed]("Refereed", algorithms.Overridden, "mode oracle selects on the referee"),
		algorithms.Cap[algorithms.Reducer]("Reducer", algorithms.Overridden, "the tuned release's own reduced path"),
		algorithms.Cap[algorithms.RadialReducer]("RadialReducer", algorithms.Overridden, "the tuned release's complement is radial"),
		algorithms.Cap[algorithms.Accountant]("Accountant", algorithms.Blocked, "the base's accountant describes one run, not the tuned release"),
		algorithms.Cap[RDPer]("RDPer", algorithms.Blocked, "the base's Rényi curve describes one run, not the tuned release"),
		algorithms.Cap[Tunable]("Tunable", algorithms.Blocked, "the knobs are chosen by the wrapper"),
	}
}

var (
	_ algorithms.Accountant = (*Mechanism)(nil)
	_ RDPer                 = (*Mechanism)(nil)
	_ Tunable               = (*Mechanism)(nil)
)

// Unwrap is the base mechanism (algorithms.As).
func (m *Mechanism) Unwrap() algorithms.Mechanism { return m.base }

// Blocked blocks, for the wrapper that embeds it (this one, and the audit's underclaimed),
// the capabilities that describe or re-tune its base's own release: Accountant and RDPer
// answer algorithms.ErrNotAvailable, Tunable has no knobs (Capabilities).
type Blocked struct{}

// Account blocks the base's accountant.
func (Blocked) Account(problems.Constants, algorithms.Budget, algorithms.Record) (eps, delta float64, err error) {
	return 0, 0, algorithms.ErrNotAvailable
}

// RDP blocks the base's Rényi curve.
func (Blocked) RDP(problems.Constants, algorithms.Budget, []float64) ([]float64, error) {
	return nil, algorithms.ErrNotAvailable
}

// Knobs is empty: the wrapper has chosen them.
func (Blocked) Knobs(problems.Constants) []Knob { return nil }

// WithKnobs blocks the base's knobs.
func (Blocked) WithKnobs(map[string]float64) (algorithms.Mechanism, error) {
	return nil, algorithms.ErrNotAvailable
}
