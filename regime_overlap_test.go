package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"strings"
	"testing"
)

// TestRegimeMapOverlap: the full map (regime_map_full) reproduces the suite map's rows in
// the cells they share, column for column but for experiment, cell and wall times: the
// two specs share the seed, the sweep axes (hence the cell keys, from which
// experiments/seed.go derives every stream) and the algorithm entries. Pairs of cell ids
// (suite, full) of the same cell key: n = 100, ε = 1, d = 16, rank 2 with g_k = 0.05 on R^d,
// and with g_k = 0 on the ball; the identity columns compared below would catch a wrong pair.
func TestRegimeMapOverlap(t *testing.T) {
	if testing.Short() {
		t.Skip("long: plans and runs 8 rows")
	}
	row := func(spec, cell, alg string) map[string]string {
		var out, errb bytes.Buffer
		args := []string{"-exp", "experiments/" + spec + ".yaml", "-out", t.TempDir(), "-no-cache", "-only", "cell=" + cell + ",algorithm=" + alg + ",trial=1"}
		if err := run(context.Background(), args, &out, &errb); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, errb.String())
		}
		recs, err := csv.NewReader(&out).ReadAll()
		if err != nil || len(recs) != 2 {
			t.Fatalf("%s %s %s: want a header and a row, got %d records (%v)", spec, cell, alg, len(recs), err)
		}
		m := map[string]string{}
		for i, k := range recs[0] {
			m[k] = recs[1][i]
		}
		return m
	}
	for _, p := range [][2]string{{"c0804", "c1964"}, {"c0801", "c1961"}} {
		for _, alg := range []string{"expmech", "noisy-gd-private"} {
			a, b := row("regime_map", p[0], alg), row("regime_map_full", p[1], alg)
			for k, v := range a {
				if k == "experiment" || k == "cell" || strings.HasSuffix(k, "_seconds") {
					continue
				}
				if b[k] != v {
					t.Errorf("%s: suite %s and full %s differ in %s: %q vs %q", alg, p[0], p[1], k, v, b[k])
				}
			}
		}
	}
}
