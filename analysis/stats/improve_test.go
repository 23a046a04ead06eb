package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestProbImprovementRanks checks P(A < B) against an independent route: the count of
// negative, zero and positive paired differences.
func TestProbImprovementRanks(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6}
	b := []float64{2, 2, 1, 5, 4, 7}
	// differences a − b: −1, 0, 2, −1, 1, −1 → 3 negative, 1 zero: (3 + ½)/6.
	if got, want := ProbImprovement(a, b), 3.5/6; math.Abs(got-want) > 1e-15 {
		t.Fatalf("P = %v, want %v", got, want)
	}
	if got := ProbImprovement(a, b) + ProbImprovement(b, a); math.Abs(got-1) > 1e-15 {
		t.Fatalf("P(A<B) + P(B<A) = %v, want 1", got)
	}
}

// TestProbImprovementCIEnumeration checks the bootstrap interval against the exact law of
// the resampled statistic: with w wins, e ties and l losses among n trials, a resample's
// counts are multinomial(n; w/n, e/n, l/n) and its statistic (W + E/2)/n. The exact 2.5%
// and 97.5% quantiles of that law (enumerated) must bracket the bootstrap's ends within the
// Monte-Carlo error of B resamples, i.e. the ends lie between neighbouring atoms.
func TestProbImprovementCIEnumeration(t *testing.T) {
	a := []float64{0, 0, 0, 0, 0, 1, 1, 2}
	b := []float64{1, 1, 1, 1, 1, 1, 0, 1} // 5 wins, 1 tie, 2 losses
	n := len(a)
	pw, pe, pl := 5.0/8, 1.0/8, 2.0/8
	type atom struct{ v, p float64 }
	var atoms []atom
	lf := func(k int) float64 { v, _ := math.Lgamma(float64(k + 1)); return v }
	for w := 0; w <= n; w++ {
		for e := 0; w+e <= n; e++ {
			l := n - w - e
			lp := lf(n) - lf(w) - lf(e) - lf(l) + float64(w)*math.Log(pw) + float64(e)*math.Log(pe) + float64(l)*math.Log(pl)
			atoms = append(atoms, atom{(float64(w) + float64(e)/2) / float64(n), math.Exp(lp)})
		}
	}
	quantile := func(q float64) float64 {
		best := math.Inf(1)
		for _, x := range atoms {
			var c float64
			for _, y := range atoms {
				if y.v <= x.v {
					c += y.p
				}
			}
			if c >= q && x.v < best {
				best = x.v
			}
		}
		return best
	}
	p, lo, hi := ProbImprovementCI(a, b, 20000, rand.New(rand.NewPCG(1, 2)))
	if math.Abs(p-5.5/8) > 1e-15 {
		t.Fatalf("P = %v, want 5.5/8", p)
	}
	step := 0.5 / float64(n) // the atoms' spacing
	if ql := quantile(0.025); math.Abs(lo-ql) > step+1e-12 {
		t.Errorf("lo = %v, exact 2.5%% quantile %v", lo, ql)
	}
	if qh := quantile(0.975); math.Abs(hi-qh) > step+1e-12 {
		t.Errorf("hi = %v, exact 97.5%% quantile %v", hi, qh)
	}
	if !(lo <= p && p <= hi) {
		t.Errorf("CI [%v, %v] misses P = %v", lo, hi, p)
	}
}

// TestSignTestP checks the sign test against closed forms: 7 wins of 8 untied gives
// (C(8,7) + C(8,8))/256 = 9/256; all ties give 1; 0 wins of 3 gives 1.
func TestSignTestP(t *testing.T) {
	a := []float64{0, 0, 0, 0, 0, 0, 0, 2, 5}
	b := []float64{1, 1, 1, 1, 1, 1, 1, 1, 5}
	if got := SignTestP(a, b); math.Abs(got-9.0/256) > 1e-15 {
		t.Errorf("p = %v, want 9/256", got)
	}
	if got := SignTestP([]float64{1, 2}, []float64{1, 2}); got != 1 {
		t.Errorf("all ties: p = %v, want 1", got)
	}
	if got := SignTestP([]float64{2, 2, 2}, []float64{1, 1, 1}); got != 1 {
		t.Errorf("no wins: p = %v, want 1", got)
	}
}
