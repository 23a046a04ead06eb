package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"expmech/rows"
)

// TestStudentTwoSided against closed forms of Student's t: ν = 1 (Cauchy) P(|T| ≥ t) =
// 1 − (2/π)·atan t; ν = 2: 1 − t/√(2 + t²); ν → ∞: the normal 2Φ(−t) = erfc(t/√2).
func TestStudentTwoSided(t *testing.T) {
	const tol = 1e-12
	for _, x := range []float64{0, 0.3, 1, 2.5, 10} {
		if got, want := StudentTwoSided(x, 1), 1-2/math.Pi*math.Atan(x); math.Abs(got-want) > tol {
			t.Errorf("ν=1, t=%g: got %g, want %g", x, got, want)
		}
		if got, want := StudentTwoSided(-x, 2), 1-x/math.Sqrt(2+x*x); math.Abs(got-want) > tol {
			t.Errorf("ν=2, t=%g: got %g, want %g", -x, got, want)
		}
		// ν = 1e7: the t law is the normal within O(1/ν).
		if got, want := StudentTwoSided(x, 1e7), math.Erfc(x/math.Sqrt2); math.Abs(got-want) > 1e-6 {
			t.Errorf("ν=1e7, t=%g: got %g, want the normal %g", x, got, want)
		}
	}
}

// TestWelchT: the statistic and the Welch–Satterthwaite degrees of freedom computed by
// hand for m1 = 1, s1 = 1, n1 = 5, m2 = 2, s2 = 2, n2 = 10: v1 = 0.2, v2 = 0.4,
// t = 1/√0.6, df = 0.36/(0.04/4 + 0.16/9).
func TestWelchT(t *testing.T) {
	tt, df, p := WelchT(1, 1, 5, 2, 2, 10)
	wantT, wantDF := 1/math.Sqrt(0.6), 0.36/(0.04/4+0.16/9)
	if math.Abs(tt-wantT) > 1e-12 || math.Abs(df-wantDF) > 1e-12 {
		t.Errorf("got t=%g df=%g, want t=%g df=%g", tt, df, wantT, wantDF)
	}
	if want := StudentTwoSided(wantT, wantDF); p != want {
		t.Errorf("p: got %g, want %g", p, want)
	}
	if _, _, p := WelchT(3, 0, 4, 3, 0, 4); p != 1 {
		t.Errorf("equal constants: got p=%g, want 1", p)
	}
	if _, _, p := WelchT(3, 0, 4, 4, 0, 4); p != 0 {
		t.Errorf("different constants: got p=%g, want 0", p)
	}
}

// TestBenjaminiHochberg against the definition: with p sorted, reject the k smallest for
// the largest k with p_(k) ≤ kα/m; q_i ≤ α iff p_i is rejected.
func TestBenjaminiHochberg(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 200 {
		m := 1 + rng.IntN(30)
		p := make([]float64, m)
		for i := range p {
			p[i] = math.Pow(rng.Float64(), 3) // many small p values
		}
		q := BenjaminiHochberg(p)
		sorted := slices.Clone(p)
		slices.Sort(sorted)
		const alpha = 0.05
		k := 0
		for j := m; j >= 1; j-- {
			if sorted[j-1] <= float64(j)*alpha/float64(m) {
				k = j
				break
			}
		}
		for i := range p {
			rejected := k > 0 && p[i] <= sorted[k-1]
			if (q[i] <= alpha) != rejected {
				t.Fatalf("trial %d: p=%v: q[%d]=%g, rejected by the step-up rule: %v", trial, p, i, q[i], rejected)
			}
			if q[i] < p[i]*(1-1e-12) || q[i] > 1 {
				t.Fatalf("trial %d: q[%d]=%g outside [p, 1] (p=%g)", trial, i, q[i], p[i])
			}
		}
	}
	if q := BenjaminiHochberg([]float64{math.NaN(), 0.01}); !math.IsNaN(q[0]) || q[1] != 0.01 {
		t.Errorf("NaN: got %v, want [NaN 0.01] (NaN is not a test)", q)
	}
}

// TestCompareMatchesIdentity: rows are matched on their cell identity, not on the
// positional cell id: the new run numbers its cells in the opposite order.
func TestCompareMatchesIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	xs := []float64{100, 200, 400}
	old := synthRows(rng, "expmech", "n", xs, -1, 5, 0.1, 6, 0)
	nw := synthRows(rng, "expmech", "n", xs, -1, 5, 0.1, 6, 0)
	for _, r := range nw {
		switch r["cell"] {
		case "c0":
			r["cell"] = "c2"
		case "c2":
			r["cell"] = "c0"
		}
		r["seed"] = "2" // other seeds: Welch
	}
	// Make the n = 400 cell of the new run 3× worse.
	for _, r := range nw {
		if r["n"] == "400" {
			v, _ := rows.ParseFloat(r["excess_empirical_risk"])
			r["excess_empirical_risk"] = rows.Float(3 * v)
		}
	}
	cs, err := Compare(recs(t, old), recs(t, nw), CompareOptions{Metrics: []string{rows.ColExcessEmpiricalRisk}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 {
		t.Fatalf("got %d comparisons, want 3", len(cs))
	}
	for _, c := range cs {
		n := c.Identity[slices.IndexFunc(c.Identity, func(kv rows.KV) bool { return kv.Col == rows.ColN })].Value
		wantSig := n == "400"
		if c.Significant != wantSig || c.Test != TestWelch {
			t.Errorf("n=%s: got significant=%v (ratio %.3g, q %.3g, %s), want %v (welch)", n, c.Significant, c.Ratio, c.Q, c.Test, wantSig)
		}
		if wantSig && math.Abs(c.Ratio-3) > 0.5 {
			t.Errorf("n=%s: got ratio %g, want about 3", n, c.Ratio)
		}
	}
}

// TestCompareSweptParameter: cells that share their identity columns and differ only in a
// swept algorithm parameter (a column "expmech.step_c") are compared separately, matched
// on that column's value even when the runs number the cells differently.
func TestCompareSweptParameter(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	mk := func(swap bool) []rows.Row {
		var out []rows.Row
		for i, c := range []string{"0.0625", "0.25"} {
			rs := synthRows(rng, "expmech", "n", []float64{100}, -1, 5, 0.1, 6, 0)
			for _, r := range rs {
				id := i
				if swap {
					id = 1 - i
				}
				r["cell"] = "c" + strconv.Itoa(id)
				r["expmech.step_c"] = c
				if c == "0.25" {
					v, _ := rows.ParseFloat(r["value_queries"])
					r["value_queries"] = rows.Float(v / 4 * (1 + 0.01*rng.NormFloat64()))
				} else {
					v, _ := rows.ParseFloat(r["value_queries"])
					r["value_queries"] = rows.Float(v * (1 + 0.01*rng.NormFloat64()))
				}
			}
			out = append(out, rs...)
		}
		return out
	}
	cs, err := Compare(recs(t, mk(false)), recs(t, mk(true)), CompareOptions{Metrics: []string{rows.ColValueQueries}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Fatalf("got %d comparisons, want 2 (one per step_c)", len(cs))
	}
	for _, c := range cs {
		if len(c.Extra) != 1 || c.Extra[0].Col != "expmech.step_c" {
			t.Fatalf("got extra key %v, want expmech.step_c", c.Extra)
		}
		if c.Significant || math.Abs(c.Ratio-1) > 0.05 {
			t.Errorf("step_c=%s: got ratio %g (significant %v), want the same cell matched (ratio ≈ 1)", c.Extra[0].Value, c.Ratio, c.Significant)
		}
	}
}
