package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"expmech/algorithms/mechtest"
	"expmech/algorithms/sampler"
	"expmech/rows"
)

// TestCertificates runs the mechanism kit's certificate property on every
// mechanism of the real registry: over randomised configs, certified ⇒ the accountant on
// what ran is within the budget and every trusted constant is public.
func TestCertificates(t *testing.T) {
	choices := map[string][]string{
		// expmech / expmech-pure
		"sampler":     sampler.Names(), // every registered sampler
		"mode":        {"certified", "practical"},
		"calibration": {"exact", "paper"},
		"setting":     {"auto", "erm", "sco", "strongly-convex", "lowrank"},
		"preset":      {"", "lll24-printed"},
		// the audit's underclaimed wrapper: the mechanism it wraps
		"inner": {"noisy-gd", "output-perturbation", "expmech"},
	}
	// The PLD/RDP accountants at T up to 200 n² take about a second per config: fewer
	// draws for the mechanisms that run them, to keep make test fast. expmech has the
	// largest config space (sampler × mode × calibration × setting × λ …) and is cheap
	// to plan: many draws, so that rare combinations (strongly-convex with λ > 0 and a
	// certified sampler) are reached.
	configs := map[string]int{"noisy-sgd-bst14": 12, "dp-sgd": 12, "expmech": 400, "expmech-pure": 128}
	shortCut := map[string]bool{"expmech": true, "expmech-pure": true, "sampler-probe": true, "dpzero": true, "nonprivate": true}
	for _, f := range registry().Mechanisms {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			k := configs[f.Name]
			if k == 0 {
				k = 48
			}
			if testing.Short() && (f.Name == "noisy-sgd-bst14" || f.Name == "dp-sgd") {
				t.Skip("long: the PLD/RDP accountant takes seconds per config")
			}
			if testing.Short() && shortCut[f.Name] {
				// A quarter of the draws for the dearest (this test took 5 of make test's
				// CPU-seconds): reaching rare combinations is make test-long's job, which
				// draws them all.
				k /= 4
			}
			mechtest.Certificates(t, f, mechtest.CertOptions{Configs: k, Choices: choices})
		})
	}
}

// writeSpec writes files (name → content) into a temporary folder and returns its path.
func writeSpec(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestStrongConvexityRefused is the first unsound configuration: setting
// strongly-convex with strong_convexity: 1 on the linear canary (n = 100, ε = 1,
// δ = 1e-5, exact sampler). The linear loss declares no strong convexity, so the spec is
// refused before anything runs, with exit status 2 and the key named.
func TestStrongConvexityRefused(t *testing.T) {
	dir := writeSpec(t, map[string]string{"sc.yaml": `name: sc
problem: {kind: linear, domain: ball, radius: 1, n: 100, d: 2}
privacy: {epsilon: 1, delta: 1.0e-5}
algorithms: [{name: expmech, sampler: exact, setting: strongly-convex, strong_convexity: 1}]
`})
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-exp", filepath.Join(dir, "sc.yaml"), "-out", filepath.Join(dir, "out"), "-figures", filepath.Join(dir, "fig"), "-dry-run"}, &stdout, &stderr)
	if code := report(err, &stderr); code != 2 {
		t.Fatalf("exit status %d, want 2 (err %v)", code, err)
	}
	if msg := stderr.String(); !strings.Contains(msg, "algorithms[0].strong_convexity") || !strings.Contains(msg, "declared strong convexity 0") {
		t.Errorf("stderr %q: want the key algorithms[0].strong_convexity and the declared value", msg)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("output written for a refused spec")
	}
}

// planRows runs -dry-run on the spec in dir and returns plan.csv's rows.
func planRows(t *testing.T, dir, spec, name string) []*rows.Record {
	t.Helper()
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "out")
	if err := run(context.Background(), []string{"-exp", filepath.Join(dir, spec), "-out", out, "-figures", filepath.Join(dir, "fig"), "-dry-run"}, &stdout, &stderr); err != nil {
		t.Fatalf("dry run: %v (%s)", err, stderr.String())
	}
	rs, err := rows.ReadFile(filepath.Join(out, name, "plan.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestBST14StepsOverrideNotCertified is the second unsound configuration: noisy-sgd-bst14
// keeps BST14's σ (derived for T = n²) under a steps override. At n = 20, ε = 2,
// steps = 200·n², the issue reports the accountant's ε = 8.43; the row must say none with
// the reason, while the default T = n² stays certified.
func TestBST14StepsOverrideNotCertified(t *testing.T) {
	dir := writeSpec(t, map[string]string{"bst.yaml": `name: bst
problem: {kind: linear, domain: ball, radius: 1, n: 20, d: 2}
privacy: {epsilon: 2, delta: 1.0e-5}
algorithms:
  - {name: noisy-sgd-bst14}
  - {name: noisy-sgd-bst14, label: long, steps: 80000, calibration: paper}
  - {name: noisy-sgd-bst14, label: long-exact, steps: 80000}
`})
	rs := planRows(t, dir, "bst.yaml", "bst")
	if len(rs) != 3 {
		t.Fatalf("%d plan rows, want 3", len(rs))
	}
	for _, r := range rs {
		eps, _ := r.Float(rows.ColEpsilonSpent)
		g, why := r.Text(rows.ColGuarantee), r.Text(rows.ColGuaranteeReason)
		switch r.Text(rows.ColAlgorithm) {
		case "noisy-sgd-bst14", "long-exact": // σ calibrated by the accountant for the T run
			if g != "certified" || !(eps <= 2) {
				t.Errorf("T = n²: guarantee %q (ε_spent %v, %q), want certified with ε_spent ≤ 2", g, eps, why)
			}
		case "long":
			// The issue measured ε = 8.43 with the earlier, looser replace-one accountant
			// (group privacy + a PLD drifting by T·h); the substitution-pair PLD is tighter,
			// so the spent ε lies above the target 2 and at most at that earlier bound.
			if g != "none" || !(eps > 2 && eps <= 8.43) || !strings.Contains(why, "epsilon_spent") {
				t.Errorf("T = 200n²: guarantee %q, ε_spent %v, reason %q; want none, 2 < ε_spent ≤ 8.43, the reason naming epsilon_spent", g, eps, why)
			}
		}
	}
}

// TestRescaleScaleNotCertified is the third unsound configuration: rescale: scale divides
// the rows by the file's largest row norm, a data-dependent constant, so no row is
// certified; rescale: clip (row-wise, data independent) keeps the certificate.
func TestRescaleScaleNotCertified(t *testing.T) {
	if testing.Short() {
		t.Skip("long: runs rescaled mechanisms through the runner")
	}
	data := "z1,z2\n3,0\n0,1\n0.5,0.5\n-1,2\n0.2,0.1\n"
	for _, mode := range []string{"scale", "clip"} {
		t.Run(mode, func(t *testing.T) {
			dir := writeSpec(t, map[string]string{"pts.csv": data, "r.yaml": `name: r
problem: {kind: extended-linear, domain: unconstrained, radius: 1, data: pts.csv, d: 2, lipschitz: 1, rescale: ` + mode + `}
privacy: {epsilon: 1, delta: 1.0e-5}
algorithms: [{name: noisy-gd}, {name: dp-sgd}, {name: expmech, sampler: exact}]
`})
			rs := planRows(t, dir, "r.yaml", "r")
			if len(rs) != 3 {
				t.Fatalf("%d plan rows, want 3", len(rs))
			}
			for _, r := range rs {
				t.Logf("%s: %s %q [%s]", r.Text(rows.ColAlgorithm), r.Text(rows.ColGuarantee), r.Text(rows.ColGuaranteeReason), r.Text(rows.ColTrustedConstants))
				g, why := r.Text(rows.ColGuarantee), r.Text(rows.ColGuaranteeReason)
				alg := r.Text(rows.ColAlgorithm)
				if mode == "scale" && (g == "certified" || !strings.Contains(why, "measured")) {
					t.Errorf("%s with rescale: scale: guarantee %q, reason %q; want not certified, the reason naming the measured constant", alg, g, why)
				}
				if mode == "clip" && alg != "expmech" && g != "certified" {
					t.Errorf("%s with rescale: clip: guarantee %q (%q), want certified", alg, g, why)
				}
				if tc := r.Text(rows.ColTrustedConstants); tc == "" {
					t.Errorf("%s: trusted_constants empty", alg)
				}
			}
		})
	}
}
