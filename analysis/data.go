package analysis

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"expmech/gauss"
	"expmech/rows"
)

// table holds the rows of one results.csv, split by status.
type table struct {
	all, ok []rows.Row
}

func newTable(rs []rows.Row) table {
	t := table{all: rs}
	for _, r := range rs {
		if r["status"] == "ok" {
			t.ok = append(t.ok, r)
		}
	}
	return t
}

// rowCounts is what the report says about excluded rows.
type rowCounts struct {
	Total, OK int
	ByStatus  map[string]int // status (≠ ok) → rows
	Errors    map[string]int // "algorithm: error" → rows, for the failure table
}

func (t table) counts() rowCounts {
	c := rowCounts{Total: len(t.all), OK: len(t.ok), ByStatus: map[string]int{}, Errors: map[string]int{}}
	for _, r := range t.all {
		if s := r["status"]; s != "ok" {
			if s == "" {
				s = "(empty)"
			}
			c.ByStatus[s]++
			msg := r["error"]
			if len(msg) > 120 {
				msg = msg[:120] + "…"
			}
			c.Errors[r["algorithm"]+": "+msg]++
		}
	}
	return c
}

// num parses s as a float; ok is false for "" or a non-number.
func num(s string) (float64, bool) {
	if s == "" {
		return math.NaN(), false
	}
	v, err := rows.ParseFloat(s)
	if err != nil || math.IsNaN(v) {
		return math.NaN(), false
	}
	return v, true
}

// sameValue compares two cell values: numerically (relative 1e-9) when both are numbers,
// as strings otherwise, so "1e-5" matches "1.0e-05".
func sameValue(a, b string) bool {
	x, okx := num(a)
	y, oky := num(b)
	if okx && oky {
		if x == y {
			return true
		}
		return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
	}
	return strings.TrimSpace(a) == strings.TrimSpace(b)
}

// matches reports whether r satisfies every filter of where.
func matches(r rows.Row, where map[string]string) bool {
	for k, v := range where {
		if !sameValue(r[k], v) {
			return false
		}
	}
	return true
}

func filter(rs []rows.Row, algorithm string, where map[string]string) []rows.Row {
	var out []rows.Row
	for _, r := range rs {
		if algorithm != "" && r["algorithm"] != algorithm {
			continue
		}
		if matches(r, where) {
			out = append(out, r)
		}
	}
	return out
}

// value evaluates expr on r: a column, a derived column (package doc), or "a/b".
// ok is false when the value is missing or not a number.
func value(r rows.Row, expr string) (float64, bool) {
	if a, b, isRatio := strings.Cut(expr, "/"); isRatio {
		x, okx := value(r, strings.TrimSpace(a))
		y, oky := value(r, strings.TrimSpace(b))
		if !okx || !oky || y == 0 {
			return math.NaN(), false
		}
		return x / y, true
	}
	if s, present := r[expr]; present && s != "" {
		return num(s)
	}
	return derived(r, expr)
}

// derived computes the derived columns of the package doc from r's columns.
func derived(r rows.Row, name string) (float64, bool) {
	get := func(c string) (float64, bool) { return num(r[c]) }
	switch name {
	case "lb_rate", "lb_linear", "lb_l1":
		n, ok1 := get("n")
		d, ok2 := get("d")
		eps, ok3 := get("epsilon")
		delta, ok4 := get("delta")
		if !(ok1 && ok2 && ok3 && ok4) || n <= 0 || eps <= 0 || delta <= 0 || delta >= 1 {
			return math.NaN(), false
		}
		rate := LowerBoundRate(n, d, eps, delta)
		switch name {
		case "lb_linear":
			return math.Min(1, rate), true
		case "lb_l1":
			return d * math.Min(1, rate), true
		}
		return rate, true
	case "lb_queries":
		n, ok1 := get("n")
		d, ok2 := get("d")
		eps, ok3 := get("epsilon")
		delta, ok4 := get("delta")
		if !(ok1 && ok2 && ok3 && ok4) || delta <= 0 || delta >= 1 {
			return math.NaN(), false
		}
		return QueryLowerBound(n, d, eps, delta), true
	case "gauss_delta":
		s, ok1 := get("gdp_s")
		eps, ok2 := get("epsilon")
		if !ok1 || !ok2 {
			return math.NaN(), false
		}
		return GaussianDelta(eps, s), true
	case "total_queries":
		v, ok1 := get("value_queries")
		g, ok2 := get("gradient_queries")
		if !ok1 && !ok2 {
			return math.NaN(), false
		}
		if !ok1 {
			v = 0
		}
		if !ok2 {
			g = 0
		}
		return v + g, true
	}
	return math.NaN(), false
}

// LowerBoundRate is √(d·ln(1/δ))/(n·ε), the (ε, δ)-DP-ERM lower-bound rate in units of
// G·C (BST14; Steinke–Ullman 2016; LLL24 Table 1 and Thm 3.7).
func LowerBoundRate(n, d, eps, delta float64) float64 {
	return math.Sqrt(d*math.Log(1/delta)) / (n * eps)
}

// QueryLowerBound is min(ε²n²/ln(1/δ), n·d), the value-query lower bound of GLL22 §7
// (Ω̃ hides constants and logarithms; the curve is drawn with constant 1).
func QueryLowerBound(n, d, eps, delta float64) float64 {
	return math.Min(eps*eps*n*n/math.Log(1/delta), n*d)
}

// GaussianDelta is the Gaussian privacy curve δ_s(ε) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2)
// (Balle–Wang 2018 Thm 8; SPEC §1.1), evaluated with the scaled complementary error
// function so that e^ε never overflows (PRIVACY.md §1.1): with u = ε/s − s/2,
// v = ε/s + s/2 one has e^ε Φ(−v) = ½ e^{−u²/2} erfcx(v/√2).
// It is a reporting tool here (derived column gauss_delta), not the accountant.
func GaussianDelta(eps, s float64) float64 {
	switch {
	case s <= 0:
		return 0
	case math.IsInf(s, 1):
		return 1
	}
	u := eps/s - s/2
	v := eps/s + s/2
	a, b := u/math.Sqrt2, v/math.Sqrt2
	if u > 0 {
		return 0.5 * math.Exp(-u*u/2) * (erfcx(a) - erfcx(b))
	}
	return 0.5*(math.Erf(b)-math.Erf(a)) - 0.5*math.Expm1(eps)*math.Erfc(b)
}

// erfcx is gauss.Erfcx (one copy in the module).
func erfcx(x float64) float64 { return gauss.Erfcx(x) }

// identityColumns are the cell columns carried into summaries and tables.
var identityColumns = []string{"problem", "loss_kind", "domain", "task", "n", "d", "rank", "g_k", "epsilon", "delta"}

// sweptColumns returns the identity columns whose value varies across rs.
func sweptColumns(rs []rows.Row) []string {
	var out []string
	for _, c := range identityColumns {
		first, varies := "", false
		for i, r := range rs {
			if i == 0 {
				first = r[c]
			} else if !sameValue(r[c], first) {
				varies = true
				break
			}
		}
		if varies {
			out = append(out, c)
		}
	}
	return out
}

// constantColumns returns "col=value" for the numeric identity columns constant across rs
// (excluding skip), for figure subtitles.
func constantColumns(rs []rows.Row, skip ...string) []string {
	if len(rs) == 0 {
		return nil
	}
	var out []string
	for _, c := range []string{"n", "d", "rank", "g_k", "epsilon", "delta"} {
		if slices.Contains(skip, c) || rs[0][c] == "" {
			continue
		}
		const0 := true
		for _, r := range rs[1:] {
			if !sameValue(r[c], rs[0][c]) {
				const0 = false
				break
			}
		}
		if const0 {
			out = append(out, symbol(c)+"="+fmtShort(rs[0][c]))
		}
	}
	return out
}

func fmtShort(s string) string {
	if v, ok := num(s); ok {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return s
}

func symbol(c string) string {
	switch c {
	case "epsilon":
		return "ε"
	case "delta":
		return "δ"
	case "g_k":
		return "G_k"
	}
	return c
}

// fmtG formats a statistic for tables: 4 significant digits, "—" for NaN.
func fmtG(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
