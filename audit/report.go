package audit

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// CSVHeader is the column order of results/audit/audit.csv.
var CSVHeader = []string{"mechanism", "kind", "claimed", "lower_bound", "n", "confidence", "pass", "broken", "verdict", "notes"}

func ff(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Verdict is PASS / FAIL for honest rows and FLAGGED (expected) / MISSED for broken ones.
func (r Result) Verdict() string {
	switch {
	case r.Broken && !r.Pass:
		return "FLAGGED (expected)"
	case r.Broken:
		return "MISSED"
	case r.Pass:
		return "PASS"
	}
	return "FAIL"
}

// WriteCSV writes one row per result under CSVHeader.
func WriteCSV(w io.Writer, rs []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, r := range rs {
		rec := []string{r.Mechanism, r.Kind, ff(r.Claimed), ff(r.LowerBound), strconv.Itoa(r.N), ff(r.Confidence),
			strconv.FormatBool(r.Pass), strconv.FormatBool(r.Broken), r.Verdict(), r.Notes}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteReport writes the "Privacy audit" section of REPORT.md (markdown).
func WriteReport(w io.Writer, cfg Config, rs []Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Privacy audit\n\n")
	fmt.Fprintf(&b, "Neighbouring relation: replace-one. Canary budget ε = %g, δ = %g. Monte Carlo audits: N = %d runs per side, thresholds chosen on a separate pilot of %d runs per side, one-sided Clopper–Pearson bounds at (1 − %g)/2 each (PRIVACY.md §3.2). Master seed %d.\n\n",
		cfg.Epsilon, cfg.Delta, cfg.NPerSide, cfg.PilotPerSide, cfg.Confidence, cfg.Seed)
	section := func(title, kind, claimCol, lbCol, nCol string) {
		var rows []Result
		for _, r := range rs {
			if r.Kind == kind || (kind == "mc" && (r.Kind == "mu-gdp" || r.Kind == "eps-delta")) {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&b, "### %s\n\n| mechanism | kind | %s | %s | %s | verdict |\n|---|---|---|---|---|---|\n", title, claimCol, lbCol, nCol)
		for _, r := range rows {
			fmt.Fprintf(&b, "| %s | %s | %.6g | %.6g | %d | %s |\n", r.Mechanism, r.Kind, r.Claimed, r.LowerBound, r.N, r.Verdict())
		}
		b.WriteString("\nNotes:\n\n")
		for _, r := range rows {
			fmt.Fprintf(&b, "- **%s**: %s\n", r.Mechanism, r.Notes)
		}
		b.WriteString("\n")
	}
	section("Exact 1-D privacy curves of the mechanism's law (PRIVACY.md §3.1)", "exact-1d", "claimed δ_mech", "integrated δ(ε)", "grid cells")
	section("Black-box Monte Carlo audits (PRIVACY.md §3.2)", "mc", "claimed μ (or ε)", "audited lower bound", "N per side")
	section("Sampler validation: proximal-rejection vs exact separable ℓ1 (PRIVACY.md §4)", "sampler", "α (family-wise)", "min adjusted p", "samples")
	ok := 0
	for _, r := range rs {
		if r.OK() {
			ok++
		}
	}
	fmt.Fprintf(&b, "Overall: %d of %d verdicts as required (honest mechanisms pass, broken variants are flagged).\n", ok, len(rs))
	_, err := io.WriteString(w, b.String())
	return err
}
