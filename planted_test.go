package main

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"expmech/analysis"
	"expmech/analysis/check"
	anreport "expmech/analysis/report"
	"expmech/experiments"
	"expmech/rows"
)

// TestPlantedViolations runs every claim check of the residual-regime and lower-bound
// experiments on a planted wrong theory built from the check itself, and requires FAIL: a
// slope claim on data whose slope is 0.6 past its tolerance on the wrong side, a max ≤ 1 on
// a ratio of 2, a compare A ≤ B on A = B + 1. So none of these checks holds whatever the
// data ("a planted violation for each new check"). Measurements are skipped (no
// verdict); the planted rows use the spec's own sweep values and where filters.
func TestPlantedViolations(t *testing.T) {
	if testing.Short() {
		t.Skip("long: runs 40 checks twice on planted rows")
	}
	reg := registry()
	for _, name := range []string{"lowrank_gk", "lowrank_k", "lower_bounds", "lower_bounds_linear"} {
		spec, err := experiments.Load(specPath(name), schema(reg))
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range spec.Checks {
			ck := *c.(*check.Check)
			if ck.Role == check.RoleMeasurement {
				continue
			}
			xs := sweepValues(t, spec, ck.Vs)
			// The same rows built to satisfy the claim must PASS, so a FAIL of the planted
			// violation is the claim's doing, not malformed rows.
			for _, wrong := range []bool{true, false} {
				rs := plant(t, ck, xs, wrong, rand.New(rand.NewPCG(uint64(i), 7)))
				res, err := analysis.AnalyzeRows(anreport.Experiment{Name: "planted", Checks: []check.Check{ck}}, rs, t.TempDir(), t.TempDir())
				if err != nil {
					t.Fatalf("%s checks[%d]: %v", name, i, err)
				}
				want := check.Pass
				if wrong {
					want = check.Fail
				}
				if res[0].Verdict != want {
					t.Errorf("%s checks[%d] (%s %s %s), planted violation %v: got %s, want %s: %s", name, i, ck.Kind, ck.Metric, ck.Algorithm, wrong, res[0].Verdict, want, res[0].Reason)
				}
			}
		}
	}
}

// sweepValues is the check's vs axis in the full sweep, clipped to [x_min, x_max].
func sweepValues(t *testing.T, spec *experiments.Spec, vs string) []float64 {
	if vs == "" {
		return []float64{0} // a check over every cell: one group
	}
	for _, a := range spec.Sweep {
		if a.Key != vs {
			continue
		}
		var xs []float64
		for _, v := range a.Values {
			x, err := strconv.ParseFloat(v.Text, 64)
			if err != nil {
				t.Fatalf("%s: %v", vs, err)
			}
			xs = append(xs, x)
		}
		return xs
	}
	t.Fatalf("no sweep axis %s", vs)
	return nil
}

// plant builds 8 trials per x of the check's algorithm (and its against) with the where
// columns set, violating the check's claim when wrong and satisfying it otherwise.
func plant(t *testing.T, ck check.Check, xs []float64, wrong bool, rng *rand.Rand) []rows.Row {
	var out []rows.Row
	num, den, ratio := strings.Cut(ck.Metric, "/")
	cell := 0
	for _, x := range xs {
		if (ck.XMin != 0 && x < ck.XMin) || (ck.XMax != 0 && x > ck.XMax) {
			continue
		}
		cell++
		for trial := range 8 {
			noise := math.Exp(0.05 * rng.NormFloat64())
			var y float64
			switch ck.Kind {
			case check.KindSlope:
				s := ck.Slope + ck.Tolerance + 0.6 // above an upper claim, off an equality
				if ck.Claim == check.ClaimLower {
					s = ck.Slope - ck.Tolerance - 0.6
				}
				if !wrong {
					s = ck.Slope
				}
				y = 0.1 * math.Pow(x, s) * noise
			case check.KindMax:
				y = 2 * ck.Max * noise
				if !wrong {
					y = ck.Max / 2 * noise
				}
			case check.KindMin:
				y = ck.Min / 2 * noise
				if !wrong {
					y = 2 * ck.Min * noise
				}
			case check.KindCompare:
				y = 1 * noise
			default:
				t.Fatalf("kind %s not planted", ck.Kind)
			}
			for _, alg := range []string{ck.Algorithm, ck.Against} {
				if alg == "" {
					continue
				}
				v := y
				if alg == ck.Against {
					gap := 1.0 // A = B + 1: A ≤ B is violated (claim upper)
					if ck.Claim == check.ClaimLower {
						gap = -1
					}
					if !wrong {
						gap = -gap
					}
					v = y - gap
				}
				r := rows.Row{"experiment": "planted", "cell": "c" + strconv.Itoa(cell), "algorithm": alg,
					"trial": strconv.Itoa(trial), "seed": strconv.Itoa(trial), "problem": "planted", "task": "erm",
					"status": "ok", "guarantee": "nominal", "wall_seconds": "0"}
				if ck.Vs != "" {
					r[ck.Vs] = rows.Float(x)
				}
				for k, w := range ck.Where {
					r[k] = w
				}
				if ratio {
					r[num], r[den] = rows.Float(v), "1"
				} else {
					r[num] = rows.Float(v)
				}
				out = append(out, r)
			}
		}
	}
	return out
}
