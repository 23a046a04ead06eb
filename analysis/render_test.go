package analysis

import (
	"math/rand/v2"
	"os"
	"testing"

	"expmech/analysis/check"
	"expmech/analysis/report"
)

func TestRenderSample(t *testing.T) {
	dir := os.Getenv("ANALYSIS_SAMPLE_DIR")
	if dir == "" {
		t.Skip("set ANALYSIS_SAMPLE_DIR to render a sample figure")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	xs := []float64{250, 500, 1000, 2000, 4000}
	rs := synthRows(rng, "expmech", "n", xs, -1, 5, 0.3, 10, 0)
	rs = append(rs, synthRows(rng, "noisy-gd", "n", xs, -0.8, 8, 0.3, 10, 0)...)
	rs = append(rs, synthRows(rng, "dp-sgd", "n", xs, -0.9, 12, 0.4, 10, 0)...)
	exp := report.Experiment{Name: "sample", Description: "sample (GLL22 Thm 6.4)",
		Checks: []check.Check{{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n", Slope: -1, Tolerance: 0.2}},
		Figures: []report.Figure{{X: "n", Y: "excess_empirical_risk", LogX: true, LogY: true, Theory: true},
			{Name: "ratio", X: "n", Y: "excess_empirical_risk/lb_linear", LogX: true, LogY: true}}}
	if err := os.MkdirAll(dir+"/results/sample", 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := AnalyzeRows(exp, rs, dir+"/results/sample", dir+"/figures/sample")
	if err != nil {
		t.Fatal(err)
	}
	if err := report.WriteTopReport(dir+"/results", dir+"/figures", dir+"/REPORT.md", report.TopReport{Suite: []string{"sample"}}); err != nil {
		t.Fatal(err)
	}
	t.Log(res)
}
