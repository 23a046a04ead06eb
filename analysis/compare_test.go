package analysis

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"expmech/rows"

	"expmech/analysis/check"
)

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
		if c.Significant != wantSig || c.Test != check.TestWelch {
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

// stdoutProbe is a stdout that records, at its first write, whether compare.csv was
// already written.
type stdoutProbe struct {
	csv              string
	wrote, csvBefore bool
	text             []byte
}

func (p *stdoutProbe) Write(b []byte) (int, error) {
	if !p.wrote {
		_, err := os.Stat(p.csv)
		p.wrote, p.csvBefore = true, err == nil
	}
	p.text = append(p.text, b...)
	return len(b), nil
}

// TestCompareDirsFilesFirstIdentical: -compare writes compare.csv before it prints the
// table (so `-compare … | head`, which ends the process at a write after head exits,
// keeps it), and a rerun that changed nothing reads "identical", not "~ … p 1".
func TestCompareDirsFilesFirstIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	rs := synthRows(rng, "expmech", "n", []float64{100, 200}, -1, 5, 0.1, 4, 0)
	dir := t.TempDir()
	oldDir, newDir := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for _, d := range []string{oldDir, newDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		writeResults(t, d, rs)
	}
	p := &stdoutProbe{csv: filepath.Join(newDir, "compare.csv")}
	if _, err := CompareDirs(oldDir, newDir, newDir, CompareOptions{Metrics: []string{rows.ColExcessEmpiricalRisk}}, p); err != nil {
		t.Fatal(err)
	}
	if !p.wrote || !p.csvBefore {
		t.Errorf("compare.csv written after the table began (wrote %v, csv before %v)", p.wrote, p.csvBefore)
	}
	text := string(p.text)
	if strings.Count(text, "identical") != 2+1 || strings.Contains(text, "  ~  ") {
		t.Errorf("an unchanged rerun: want 2 rows reading identical (and the legend):\n%s", text)
	}
}
