package report

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/rows"
)

// TestTheoryLineOncePerCurve: two series whose theorem's bound is the same curve get one
// dashed line naming both, not one line each; a third series with another bound
// keeps its own line.
func TestTheoryLineOncePerCurve(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := []float64{100, 200, 400}
	rs := synthRows(rng, "expmech", "n", xs, -1, 5, 0.1, 4, 0)
	rs = append(rs, synthRows(rng, "prox-practical", "n", xs, -1, 5, 0.1, 4, 0)...)
	other := synthRows(rng, "noisy-gd", "n", xs, -1, 7, 0.1, 4, 0) // theory_bound 3·7·x⁻¹
	rs = append(rs, other...)
	exp := Experiment{Name: "t", Methods: map[string]string{"prox-practical": "expmech"}}
	fg := Figure{X: "n", Y: rows.ColExcessEmpiricalRisk, LogX: true, LogY: true, Theory: true}
	var out figureOutcome
	pf, err := figureData(exp, fg, recs(t, rs), &out)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, l := range pf.Lines {
		labels = append(labels, l.Label+": "+l.EndLabel)
	}
	// A bound is grey and named at its end (never a dashed line in a series' colour).
	want := []string{"theorem's bound (named at its end): expmech, prox-practical", "theorem's bound (named at its end): noisy-gd"}
	if !slices.Equal(labels, want) {
		t.Fatalf("lines: got %q, want %q", labels, want)
	}
	if pf.Lines[0].Method != "expmech" || pf.Lines[1].Method != "noisy-gd" {
		t.Errorf("line colours: got methods %q, %q, want expmech, noisy-gd", pf.Lines[0].Method, pf.Lines[1].Method)
	}
	// The variant keeps its method's colour key; the caption states interval and trials.
	if pf.Series[1].Key != "prox-practical" || pf.Series[1].Method != "expmech" {
		t.Errorf("series 1: got key %q method %q, want prox-practical / expmech", pf.Series[1].Key, pf.Series[1].Method)
	}
	if !strings.Contains(pf.Note, "95% CI") || !strings.Contains(pf.Note, "4 trials per point") {
		t.Errorf("note: got %q, want the interval type and 4 trials per point", pf.Note)
	}
}

// TestFrontierPoints: a frontier figure has one point per algorithm and cell at the mean
// cost and mean risk of its trials, each point in the front of its own cell (a front never
// joins n = 100 to n = 400), and a cost CI that stays positive on the log axis even when
// the trials' spread puts the Student t interval below 0 (wall time).
func TestFrontierPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := []float64{100, 200, 400}
	rs := synthRows(rng, "expmech", "n", xs, -1, 5, 0.1, 4, 0)
	rs = append(rs, synthRows(rng, "noisy-gd", "n", xs, -1, 7, 0.1, 4, 0)...)
	for i, r := range rs[:4] { // a wild spread in one cell's cost: t interval below 0
		r["value_queries"] = rows.Float([]float64{1, 1, 1, 4e4}[i])
	}
	fg := Figure{Kind: FigureFrontier, X: "value_queries", Y: rows.ColExcessEmpiricalRisk, LogX: true, LogY: true}
	var out figureOutcome
	pf, err := figureData(Experiment{Name: "t"}, fg, recs(t, rs), &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(pf.Series) != 2 || out.Points != 6 || !pf.Frontier || !pf.Markers {
		t.Fatalf("got %d series, %d points (frontier %v), want 2 series, 6 points, markers and front", len(pf.Series), out.Points, pf.Frontier)
	}
	s := pf.Series[0]
	if s0 := stats.Summarize([]float64{1, 1, 1, 4e4}); !(s0.Lo < 0) || !(s.XLo[0] > 0) || !(s.XLo[0] < s.X[0] && s.X[0] < s.XHi[0]) {
		t.Errorf("cost CI [%g, %g] around %g (Student t low end %g): want a positive interval around the mean", s.XLo[0], s.XHi[0], s.X[0], s0.Lo)
	}
	for i := range xs {
		if s.Fronts[i] != pf.Series[1].Fronts[i] || (i > 0 && s.Fronts[i] == s.Fronts[i-1]) {
			t.Errorf("fronts %q and %q: want one front per cell, shared by the algorithms", s.Fronts, pf.Series[1].Fronts)
		}
	}
	// synthRows: value_queries = 100·x in every trial; the risk is the trials' mean.
	for i, x := range xs {
		if i == 0 {
			continue // its cost was replaced above
		}
		if s.X[i] != 100*x {
			t.Errorf("point %d: got cost %g, want %g", i, s.X[i], 100*x)
		}
		var ys []float64
		for _, r := range rs[i*4 : i*4+4] {
			v, _ := rows.ParseFloat(r[rows.ColExcessEmpiricalRisk])
			ys = append(ys, v)
		}
		if got, want := s.Y[i], stats.Mean(ys); !table.SameParsed("", got, true, "", want, true) {
			t.Errorf("point %d: got risk %g, want the mean %g", i, got, want)
		}
		if s.Points[i] != "" && !strings.HasPrefix(s.Points[i], "n=") {
			t.Errorf("point %d: got name %q, want n=…", i, s.Points[i])
		}
	}
	if err := fg.Validate(); err != nil {
		t.Errorf("frontier figure: %v", err)
	}
	if err := (Figure{X: "n", Y: "r", Kind: "scatter"}).Validate(); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Errorf("unknown kind: got %v, want an error naming kind", err)
	}
}

// TestBoundOnlyWhereATheoremGivesOne: an oracle-tuned series' theory_bound is the minimum
// over its grid, no theorem's bound for what ran; the figure draws none for it, and still
// draws the untuned series' bound.
func TestBoundOnlyWhereATheoremGivesOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := []float64{100, 200, 400}
	rs := synthRows(rng, "noisy-gd", "n", xs, -1, 5, 0.1, 4, 0)
	tuned := synthRows(rng, "noisy-gd-oracle", "n", xs, -1, 7, 0.1, 4, 0)
	for _, r := range tuned {
		r[rows.ColTuning] = "oracle"
	}
	rs = append(rs, tuned...)
	exp := Experiment{Name: "t", Methods: map[string]string{"noisy-gd": "noisy-gd", "noisy-gd-oracle": "noisy-gd"}}
	fg := Figure{X: "n", Y: rows.ColExcessEmpiricalRisk, LogX: true, LogY: true, Theory: true}
	var out figureOutcome
	pf, err := figureData(exp, fg, recs(t, rs), &out)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, l := range pf.Lines {
		labels = append(labels, l.EndLabel)
	}
	if want := []string{"noisy-gd"}; !slices.Equal(labels, want) {
		t.Errorf("lines: got %q, want %q", labels, want)
	}
	// The two series of one method are told apart by colour and marker.
	a, b := pf.Series[0].Style, pf.Series[1].Style
	if a == nil || b == nil || a.Color == b.Color || a.Glyph == b.Glyph {
		t.Errorf("noisy-gd and noisy-gd-oracle: styles %+v and %+v, want distinct colours and markers", a, b)
	}
}

// The bias figure draws one point per algorithm at its queries per draw, the zero-cost
// exact sampler as a line, and the noise floor.
func TestBiasFigure(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var rs []rows.Row
	rs = append(rs, biasRows(rng, "exact", "c0", 4, 500, 0, func(r *rand.Rand) float64 { return r.Float64() })...)
	rs = append(rs, biasRows(rng, "p", "c0", 4, 500, 3000, func(r *rand.Rand) float64 { return math.Sqrt(r.Float64()) })...)
	rs = append(rs, biasRows(rng, "q", "c0", 4, 500, 6000, func(r *rand.Rand) float64 { return r.Float64() })...)
	fg := Figure{Name: "bias", Kind: FigureBias, X: "value_queries", Y: "statistics", LogX: true, LogY: true}
	if err := fg.Validate(); err != nil {
		t.Fatal(err)
	}
	var out figureOutcome
	pf, err := figureData(Experiment{Name: "bias"}, fg, recs(t, rs), &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(pf.Series) != 2 || pf.Series[0].X[0] != 3000 || pf.Series[1].X[0] != 6000 {
		t.Fatalf("series %+v, want p at 3000 and q at 6000 value queries per draw", pf.Series)
	}
	if d := pf.Series[0].Y[0]; math.Abs(d-0.25) > 0.05 { // CDF u², distance max(u − u²) = 1/4
		t.Errorf("D[p] = %.4f, want ≈ 0.25", d)
	}
	if len(pf.Lines) != 3 || pf.Lines[1].Y[0] != stats.KSNoiseFloor(2000) {
		t.Errorf("lines %+v, want the exact sampler, the noise floor at N = 2000 and the critical value", pf.Lines)
	}
	dir := t.TempDir()
	o := drawFigures(Experiment{Name: "bias", Figures: []Figure{fg}}, recs(t, rs), dir, 1)[0]
	if o.Err != "" {
		t.Fatal(o.Err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bias.png")); err != nil {
		t.Error(err)
	}
}

// biasRows builds the rows of one algorithm: trials rows of batch exact-CDF values, drawn
// by draw, with value_queries q per draw.
func biasRows(rng *rand.Rand, alg, cell string, trials, batch int, q float64, draw func(*rand.Rand) float64) []rows.Row {
	var out []rows.Row
	for tr := range trials {
		out = append(out, rows.Row{
			"experiment": "bias", "cell": cell, "algorithm": alg, "trial": strconv.Itoa(tr), "seed": "1",
			"problem": "exact-law", "domain": "box", "task": "erm", "n": "51", "d": "2", "epsilon": "1", "delta": "1e-05",
			"status": "ok", "guarantee": "none", "value_queries": rows.Float(q * float64(batch)), "gradient_queries": "0",
			"step_c": rows.Float(q / 1000), "statistics": statistics(batch, func() float64 { return draw(rng) }),
		})
	}
	return out
}

// statistics formats n draws of draw as a statistics cell.
func statistics(n int, draw func() float64) string {
	f := make([]string, n)
	for k := range f {
		f[k] = rows.Float(draw())
	}
	return strings.Join(f, " ")
}
