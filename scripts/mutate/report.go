package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// plantTable is the Markdown table of the plants and the kill rate per family and overall.
func plantTable(res []Result) string {
	var b strings.Builder
	b.WriteString("| plant | family | verdict | experiments | seconds | evidence |\n|---|---|---|---|---|---|\n")
	total := 0.0
	for _, r := range res {
		total += r.Seconds
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.0f | %s |\n", r.Plant.Name, r.Plant.Family, r.Verdict,
			strings.Join(r.Plant.Experiments, ", "), r.Seconds, mdCell(r.Reason))
	}
	b.WriteString("\n| family | plants | killed | weak | survived | broken/timeout | kill rate |\n|---|---|---|---|---|---|---|\n")
	fams := append(append([]string{}, Families...), "all")
	for _, f := range fams {
		n, by := 0, map[Verdict]int{}
		for _, r := range res {
			if f == "all" || r.Plant.Family == f {
				n++
				by[r.Verdict]++
			}
		}
		if n == 0 {
			continue
		}
		k, w, s := by[Killed], by[Weak], by[Survived]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %.0f%% |\n", f, n, k, w, s, n-k-w-s, 100*float64(k)/float64(n))
	}
	fmt.Fprintf(&b, "\nplant time (sum over plants, each building and running its experiments; the controls apart): %.0f s\n", total)
	return b.String()
}

func mdCell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

// writeOutputs writes the CSV (one row per plant) and the Markdown table into dir, as
// name + ".csv" and name + ".md".
func writeOutputs(dir, name string, res []Result, table string) error {
	recs := [][]string{{"plant", "family", "verdict", "experiments", "seconds", "evidence", "why"}}
	for _, r := range res {
		recs = append(recs, []string{r.Plant.Name, r.Plant.Family, string(r.Verdict), strings.Join(r.Plant.Experiments, " "),
			fmt.Sprintf("%.0f", r.Seconds), r.Reason, strings.TrimSpace(r.Plant.Why)})
	}
	return writeBoth(dir, name, recs, table)
}

// writeBoth writes the records recs as name.csv and md as name.md into dir.
func writeBoth(dir, name string, recs [][]string, md string) error {
	var buf bytes.Buffer
	if err := csv.NewWriter(&buf).WriteAll(recs); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".csv"), buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".md"), []byte(md), 0o644)
}
