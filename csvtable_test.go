package main

import (
	"encoding/csv"
	"os"
	"testing"
)

// readTable reads a CSV file the harness wrote (plan.csv, checks.csv, compare.csv) and
// returns its records, header first, with each column's index by name.
func readTable(t *testing.T, path string) (recs [][]string, col map[string]int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err = csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		t.Fatalf("%s: empty", path)
	}
	col = map[string]int{}
	for j, c := range recs[0] {
		col[c] = j
	}
	return recs, col
}
