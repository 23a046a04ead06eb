package check

import (
	"fmt"
	"math"

	"expmech/analysis/stats"
)

// SuiteAlpha is the family-wise error rate of the suite-level multiplicity statement: the
// level of each one-sided decision (the end of a 95% CI), so that a claim that PASSes
// alone and survives Holm is shown at the same level over the whole suite.
const SuiteAlpha = 0.025

// Multiplicity is Holm's step-down adjustment (Holm 1979) of the PASS p values (PPass)
// of a set of claim checks: with m claims at family-wise level SuiteAlpha, a claim is
// shown after Holm iff its adjusted p value is ≤ SuiteAlpha. Invariants and measurements
// are not claims and are left out; so are the claims with no PASS p value (the audit
// kinds, whose PASS is a failure to reject), counted in Unadjusted.
type Multiplicity struct {
	Claims     int       // claims with a PASS p value (m)
	Pass       int       // of those, PASS on their own
	PassHolm   int       // of those, PASS and still shown after Holm over the m claims
	Unadjusted int       // claims without a PASS p value
	Adjusted   []float64 // per check given to holmClaims, in order: its Holm-adjusted p (NaN if not adjusted)
}

// holmClaims adjusts the PASS p values of the checks of role claim among n checks, the
// i-th with role(i), verdict(i) and PASS p value p(i).
func HolmClaims(n int, role func(int) Role, verdict func(int) Verdict, p func(int) float64) Multiplicity {
	m := Multiplicity{Adjusted: make([]float64, n)}
	var idx []int
	var ps []float64
	for i := range n {
		m.Adjusted[i] = math.NaN()
		if role(i) != RoleClaim || verdict(i) == Measured {
			continue
		}
		if math.IsNaN(p(i)) {
			m.Unadjusted++
			continue
		}
		idx, ps = append(idx, i), append(ps, p(i))
	}
	m.Claims = len(idx)
	for k, q := range stats.HolmAdjust(ps) {
		i := idx[k]
		m.Adjusted[i] = q
		if verdict(i) == Pass {
			m.Pass++
			if q <= SuiteAlpha {
				m.PassHolm++
			}
		}
	}
	return m
}

// Text is the multiplicity statement printed beside the raw counts.
func (m Multiplicity) Text() string {
	s := fmt.Sprintf("Multiplicity: Holm's step-down over the %d claims with a p value (family-wise error %g, one-sided, "+
		"the level of each CI end): %d of their %d PASSes remain shown after Holm", m.Claims, SuiteAlpha, m.PassHolm, m.Pass)
	if m.Pass > m.PassHolm {
		s += fmt.Sprintf("; %d PASS%s only without the adjustment", m.Pass-m.PassHolm, pick(m.Pass-m.PassHolm, "", "es"))
	}
	if m.Unadjusted > 0 {
		s += fmt.Sprintf("; %d claim%s without a p value (audit checks: their PASS is a consistency with the claimed guarantee, "+
			"a failure to reject) %s not adjusted", m.Unadjusted, Plural(m.Unadjusted), pick(m.Unadjusted, "is", "are"))
	}
	return s + "."
}

// HolmVerdict is the verdict a check shows after Holm's adjustment over the suite: a
// claim's PASS whose adjusted p (adj) exceeds SuiteAlpha is not shown at the family-wise
// level and reads INCONCLUSIVE; every other verdict (FAIL, INCONCLUSIVE, a claim without
// a p value, an invariant, a measurement) is unchanged. The raw verdict is reported
// beside it.
func HolmVerdict(v Verdict, r Role, adj float64) Verdict {
	if r == RoleClaim && v == Pass && !math.IsNaN(adj) && adj > SuiteAlpha {
		return Inconclusive
	}
	return v
}
