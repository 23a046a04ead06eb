package check

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"expmech/rows"
)

// regimeRows: per cell (n = 100·(i+1)), per trial, three private methods and an oracle
// (guarantee none) with risks base·scale·exp(0.1 Z); in cell 0 "good" is 3× better than the
// rest (a clear winner), in cell 1 "good" and "rival" are the same law (indistinguishable).
func regimeRows(trials int) []rows.Row {
	rng := rand.New(rand.NewPCG(3, 4))
	var out []rows.Row
	for i := range 2 {
		for t := range trials {
			scales := map[string]float64{"good": 1, "rival": 3, "bad": 9, "oracle": 0.5}
			if i == 1 {
				scales["rival"] = 1
			}
			z := rng.NormFloat64() // the trial's instance: shared by every method
			for _, a := range []string{"good", "rival", "bad", "oracle"} {
				g := "nominal"
				if a == "oracle" {
					g = "none"
				}
				y := scales[a] * math.Exp(0.3*z+0.1*rng.NormFloat64())
				out = append(out, rows.Row{
					"experiment": "synth", "cell": "c" + strconv.Itoa(i), "algorithm": a, "trial": strconv.Itoa(t),
					"seed": "1", "problem": "lowrank", "domain": "unconstrained", "task": "erm",
					"n": strconv.Itoa(100 * (i + 1)), "d": "10", "epsilon": "1", "delta": "1e-05", "status": "ok",
					"guarantee": g, "excess_empirical_risk": rows.Float(y),
				})
			}
		}
	}
	return out
}

func TestRegimeMapLabels(t *testing.T) {
	rs := recs(t, regimeRows(12))
	m := RegimeMap(rs, rows.ColExcessEmpiricalRisk)
	if len(m) != 2 {
		t.Fatalf("%d cells, want 2", len(m))
	}
	if m[0].Best != "good" || m[0].Label != LabelWinner {
		t.Errorf("cell 0: best %q label %q, want good winner", m[0].Best, m[0].Label)
	}
	if m[1].Label != LabelIndistinguishable {
		t.Errorf("cell 1: label %q, want indistinguishable", m[1].Label)
	}
	// The oracle (guarantee none) is paired but never the best; 4 methods: 12 ordered pairs.
	if len(m[0].Pairs) != 12 || len(m[0].Private) != 3 {
		t.Errorf("cell 0: %d pairs, %d private, want 12 and 3", len(m[0].Pairs), len(m[0].Private))
	}
	p, _ := m[0].Pair("good", "rival")
	q, _ := m[0].Pair("rival", "good")
	if p.P != 1 || q.P != 0 || p.Trials != 12 {
		t.Errorf("P(good < rival) = %v, P(rival < good) = %v over %d trials, want 1, 0, 12", p.P, q.P, p.Trials)
	}
	if r := m[0].Ratio("bad"); math.Abs(r-9) > 3 {
		t.Errorf("ratio of bad to the best = %v, want ≈ 9", r)
	}
	// Deterministic, and independent of the other cells (seeded by the cell's identity).
	again := RegimeMap(rs[len(rs)/2:], rows.ColExcessEmpiricalRisk)
	if a, b := m[1].Pairs[0], again[0].Pairs[0]; a != b {
		t.Errorf("cell 1 alone: %+v, with cell 0: %+v", b, a)
	}
	if bad := VerifyRegime(m, rs, rows.ColExcessEmpiricalRisk); len(bad) != 0 {
		t.Errorf("a correct map disagrees: %v", bad)
	}
}

// TestRegimePlantedLabels plants the bugs the check must catch: a wrong winner (the
// methods swapped) and a winner label on an indistinguishable cell.
func TestRegimePlantedLabels(t *testing.T) {
	rs := recs(t, regimeRows(12))
	m := RegimeMap(rs, rows.ColExcessEmpiricalRisk)
	swapped := append([]RegimeCell(nil), m...)
	swapped[0].Best = "rival"
	if bad := VerifyRegime(swapped, rs, rows.ColExcessEmpiricalRisk); len(bad) == 0 {
		t.Error("a swapped winner passed")
	}
	wrong := append([]RegimeCell(nil), m...)
	wrong[1].Label, wrong[1].Best = LabelWinner, "good"
	if bad := VerifyRegime(wrong, rs, rows.ColExcessEmpiricalRisk); len(bad) == 0 {
		t.Error("a winner label on an indistinguishable cell passed")
	}
	c := Check{Kind: KindRegime, Metric: rows.ColExcessEmpiricalRisk, Algorithm: "good", Role: RoleInvariant}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	res := Run(c, rs, nil)
	if res.Verdict != Pass || res.Lo != 1 || res.N != 2 {
		t.Errorf("check on a correct map: %v (%s), %v winners over %d cells", res.Verdict, res.Reason, res.Lo, res.N)
	}
	fail := judgeRegime(newResult(c), wrong, VerifyRegime(wrong, rs, rows.ColExcessEmpiricalRisk), 2)
	if fail.Verdict != Fail || !strings.Contains(fail.Reason, "sign test") {
		t.Errorf("planted label: %v (%s), want FAIL", fail.Verdict, fail.Reason)
	}
	missing := c
	missing.Algorithm = "absent"
	if r := Run(missing, rs, nil); r.Verdict != Fail {
		t.Errorf("a method missing from the map: %v, want FAIL", r.Verdict)
	}
}

// TestRegimeMapSweptExtraColumn: a swept problem parameter is an extra column that every
// row of a cell shares (the geometric median's power); it belongs to the cell's Params, as
// n and d do, so that the phase figures and the "which method" section can read it. An
// extra column that only one method writes (a per-algorithm output) is not.
func TestRegimeMapSweptExtraColumn(t *testing.T) {
	raw := regimeRows(6)
	for _, r := range raw {
		r["power"] = map[string]string{"c0": "0", "c1": "2"}[r["cell"]]
		if r["algorithm"] == "good" {
			r["clip"] = "1"
		}
	}
	m := RegimeMap(recs(t, raw), rows.ColExcessEmpiricalRisk)
	for i, want := range []string{"0", "2"} {
		if got := m[i].Params["power"]; got != want {
			t.Errorf("cell %d: Params[power] = %q, want %q", i, got, want)
		}
		if v, ok := m[i].Params["clip"]; ok {
			t.Errorf("cell %d: Params[clip] = %q, a per-method column kept", i, v)
		}
	}
}
