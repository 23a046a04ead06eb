package tuning

import (
	"expmech/algorithms"
	"expmech/problems"
)

// Capabilities of the tuned mechanism (algorithms.As). The wrapper exposes its base with
// Unwrap; for each optional capability of the base it does one of:
//
//	capability           policy      why (the runner's services arrive as algorithms.Env,
//	                                 passed through to the base, not as capabilities)
//	ConstantsChecker     inherited   every grid point runs the base's configuration with
//	                                 knobs that do not change what the check reads, so a
//	                                 base that cannot hold on the constants refuses the
//	                                 tuned spec too (exit 2 in every tuning mode)
//	Refereed             overridden  the wrapper's own: mode oracle selects on the referee
//	Reducer              overridden  the tuned release's reduced path (reduce.go)
//	RadialReducer        overridden  its complement is radial (orthogonal_norm)
//	Accountant           blocked     the base's accountant describes one run; the tuned
//	                                 release is K runs and a selection (Account answers
//	                                 algorithms.ErrNotAvailable)
//	RDPer                blocked     likewise for the base's Rényi curve (RDP answers
//	                                 algorithms.ErrNotAvailable)
//	Tunable              blocked     the knobs are already chosen by the wrapper; tuning it
//	                                 again would tune the base and drop this selection
//	                                 (Knobs is empty, WithKnobs answers ErrNotAvailable)
//
// Capabilities returns this table; the mechanism kit (mechtest.Wrapper) checks that the
// wrapper behaves as it says.
func Capabilities() []algorithms.Capability {
	const (
		in  = algorithms.Inherited
		ovr = algorithms.Overridden
		blk = algorithms.Blocked
	)
	return []algorithms.Capability{
		algorithms.Cap[algorithms.ConstantsChecker]("ConstantsChecker", in, "the grid points run the base's configuration; a base that cannot hold refuses the tuned spec"),
		algorithms.Cap[algorithms.Refereed]("Refereed", ovr, "mode oracle selects on the referee"),
		algorithms.Cap[algorithms.Reducer]("Reducer", ovr, "the tuned release's own reduced path"),
		algorithms.Cap[algorithms.RadialReducer]("RadialReducer", ovr, "the tuned release's complement is radial"),
		algorithms.Cap[algorithms.Accountant]("Accountant", blk, "the base's accountant describes one run, not the tuned release"),
		algorithms.Cap[RDPer]("RDPer", blk, "the base's Rényi curve describes one run, not the tuned release"),
		algorithms.Cap[Tunable]("Tunable", blk, "the knobs are chosen by the wrapper"),
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
