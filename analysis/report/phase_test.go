package report

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"expmech/rows"
)

// phaseRows: a 3 × 2 grid of (n, ε) cells at d = 16, plus two structure cells at n = 100;
// method "a" is 4× better than "b" where n ≥ 100 (a winner), the two tie in law elsewhere.
func phaseRows(trials int) []rows.Row {
	rng := rand.New(rand.NewPCG(5, 6))
	var out []rows.Row
	cell := 0
	add := func(n int, eps float64, rank, d int, gk float64) {
		for t := range trials {
			z := rng.NormFloat64()
			for _, a := range []string{"a", "b"} {
				s := 1.0
				if a == "b" && n >= 100 {
					s = 4
				}
				out = append(out, rows.Row{
					"experiment": "synth", "cell": "c" + strconv.Itoa(cell), "algorithm": a, "trial": strconv.Itoa(t),
					"seed": "1", "problem": "lowrank", "domain": "unconstrained", "task": "erm", "loss_kind": "absolute",
					"n": strconv.Itoa(n), "d": strconv.Itoa(d), "rank": strconv.Itoa(rank), "g_k": rows.Float(gk),
					"epsilon": rows.Float(eps), "delta": "1e-05", "status": "ok", "guarantee": "nominal",
					"excess_empirical_risk": rows.Float(s * math.Exp(0.3*z+0.1*rng.NormFloat64())),
				})
			}
		}
		cell++
	}
	for _, n := range []int{25, 50, 100} {
		for _, eps := range []float64{0.5, 1} {
			add(n, eps, 2, 16, 0)
		}
	}
	add(100, 1, 2, 16, 0.05) // rank+residual
	add(100, 1, 16, 16, 0)   // full
	return out
}

// TestPhaseFigureCells checks a phase diagram's marks: one marker per cell of its slice,
// a ring on each indistinguishable cell, and the √d/(nε) = 1 line exactly when both axes
// are among n, ε, d.
func TestPhaseFigureCells(t *testing.T) {
	rs := recs(t, phaseRows(10))
	exp := Experiment{Name: "synth", Methods: map[string]string{"a": "a", "b": "b"}}
	var out figureOutcome
	fg := Figure{Name: "p", Kind: FigurePhase, X: rows.ColN, Y: rows.ColEpsilon, LogX: true, LogY: true,
		Where: map[string]string{rows.ColRank: "2", rows.ColGK: "0"}}
	pf, err := figureData(exp, fg, rs, &out)
	if err != nil {
		t.Fatal(err)
	}
	var marks, rings int
	for _, s := range pf.Series {
		if s.Label == "indistinguishable" {
			rings += len(s.X)
		} else {
			marks += len(s.X)
		}
	}
	// 6 cells; the 4 at n < 100 are the same law for a and b: indistinguishable.
	if marks != 6 || out.Points != 6 || rings != 4 {
		t.Errorf("%d markers (%d points), %d rings; want 6, 6, 4", marks, out.Points, rings)
	}
	if len(pf.Lines) != 1 || len(pf.Lines[0].X) == 0 {
		t.Fatalf("%d threshold lines, want 1", len(pf.Lines))
	}
	// On the line √d = nε at d = 16: ε = 4/n.
	l := pf.Lines[0]
	for i := range l.X {
		if math.Abs(l.Y[i]-4/l.X[i]) > 1e-12 {
			t.Fatalf("line point (%v, %v) is not on ε = 4/n", l.X[i], l.Y[i])
		}
	}
	sfg := Figure{Name: "s", Kind: FigurePhase, X: rows.ColD, Y: StructureAxis, Where: map[string]string{rows.ColN: "100", rows.ColEpsilon: "1"}}
	var sout figureOutcome
	spf, err := figureData(exp, sfg, rs, &sout)
	if err != nil {
		t.Fatal(err)
	}
	if sout.Points != 3 || len(spf.Lines) != 0 || len(spf.YCategories) != 3 {
		t.Errorf("structure figure: %d points, %d lines, %d categories; want 3, 0, 3", sout.Points, len(spf.Lines), len(spf.YCategories))
	}
	if err := fg.Validate(); err != nil {
		t.Error(err)
	}
}
