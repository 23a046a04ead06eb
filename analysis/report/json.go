package report

import (
	"bytes"
	"cmp"
	"math"
	"strconv"

	"expmech/analysis/table"

	"expmech/analysis/check"
)

// Number is a statistic in analysis.json: a JSON number, or null for NaN and ±Inf (JSON
// has neither), so that pandas, polars and jq read it as a float without parsing strings.
type Number float64

// MarshalJSON writes the shortest representation that round-trips, or null.
func (x Number) MarshalJSON() ([]byte, error) {
	v := float64(x)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number, or null as NaN.
func (x *Number) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*x = Number(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	*x = Number(v)
	return nil
}

// String formats x for tables (4 significant digits, "—" for NaN).
func (x Number) String() string { return table.FmtG(float64(x)) }

// sidecar is analysis.json (DESIGN.md "Output files"): snake_case keys, numbers as
// numbers (null when undefined); what WriteTopReport and the HTML index read from one
// experiment.
type sidecar struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Quick       bool            `json:"quick"` // the spec was shrunk by -quick
	Checks      []sidecarCheck  `json:"checks"`
	Figures     []sidecarFigure `json:"figures"`
	RowsTotal   int             `json:"rows_total"`
	RowsOK      int             `json:"rows_ok"`
	// RowsExcluded counts the rows whose status is not ok, by status.
	RowsExcluded map[string]int `json:"rows_excluded"`
	Reference    string         `json:"reference"` // the algorithm of paired.csv's differences
	Interval     string         `json:"interval"`  // what the figures' bars are
	// Comparisons rank the methods of each excess-risk curve figure by privacy status;
	// Conclusions is the paragraph derived from them and from the compare checks.
	Comparisons []FigureComparison `json:"comparisons"`
	Conclusions string             `json:"conclusions"`
}

type sidecarCheck struct {
	Label     string          `json:"label"`
	Kind      check.CheckKind `json:"kind"`
	Metric    string          `json:"metric"`
	Algorithm string          `json:"algorithm"`
	Vs        string          `json:"vs"`
	Where     string          `json:"where"`
	Expected  Number          `json:"expected"`  // the slope, or the min/max threshold
	Tolerance Number          `json:"tolerance"` // null unless kind is slope
	Fitted    Number          `json:"fitted"`
	Lo        Number          `json:"ci_lo"`
	Hi        Number          `json:"ci_hi"`
	Claim     check.Claim     `json:"claim,omitempty"` // equality | upper | lower (slope checks)
	// ExpectedText is the claim's form and expected value, e.g. "slope ≤ 0.5 + 0.25".
	ExpectedText string        `json:"expected_text"`
	Points       int           `json:"points"`
	Trials       string        `json:"trials"` // ok trials per point, "30" or "28–30"
	Verdict      check.Verdict `json:"verdict"`
	// Role is claim, invariant (holds by construction, counted apart) or measurement
	// (verdict MEASURED).
	Role   check.Role `json:"role"`
	Reason string     `json:"reason"`
	// PPass is the p value of the test whose rejection is the PASS (null when a PASS is
	// no rejection); Resamples the bootstrap resamples behind it and the CI.
	PPass     Number `json:"p_pass"`
	Resamples int    `json:"resamples"`
	// LackOfFit is a slope check's lack-of-fit χ², its degrees of freedom and p value.
	LackOfFit sidecarLOF `json:"lack_of_fit"`
	Figure    string     `json:"figure"` // the figure that shows the claim ("" none)
	// Detect is the smallest violation the check must detect (stated, or its kind's
	// default), Power the probability of a FAIL there at this run's spread and PowerTrials
	// the trials per point for 80% (null and 0 when not estimable; check.Run).
	Detect      Number `json:"detect"`
	Power       Number `json:"power"`
	PowerTrials int    `json:"power_trials"`
	// Against and PerX are a compare check's second algorithm and its per-x comparisons.
	Against string            `json:"against,omitempty"`
	PerX    []sidecarCmpPoint `json:"per_x,omitempty"`
}

// sidecarLOF is a LackOfFit in analysis.json (nulls when undefined).
type sidecarLOF struct {
	Chi2 Number `json:"chi2"`
	DF   int    `json:"df"`
	P    Number `json:"p"`
}

// sidecarCmpPoint is a ComparePoint in analysis.json.
type sidecarCmpPoint struct {
	X       Number        `json:"x"`
	Cell    string        `json:"cell"`
	Test    string        `json:"test"`
	TrialsA int           `json:"trials_a"`
	TrialsB int           `json:"trials_b"`
	MeanA   Number        `json:"mean_a"`
	MeanB   Number        `json:"mean_b"`
	Diff    Number        `json:"diff"`
	Lo      Number        `json:"ci_lo"`
	Hi      Number        `json:"ci_hi"`
	P       Number        `json:"p_one_sided"`
	PHolm   Number        `json:"p_holm"`
	Verdict check.Verdict `json:"verdict"`
}

type sidecarFigure struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	X       string `json:"x"`
	Y       string `json:"y"`
	PNG     string `json:"png"`
	SVG     string `json:"svg"`
	PDF     string `json:"pdf"`
	Points  int    `json:"points"`
	Dropped int    `json:"dropped"`
	Note    string `json:"note"`
	Err     string `json:"error"`
}

func (rep report) sidecar() sidecar {
	sc := sidecar{Name: rep.Exp.Name, Description: rep.Exp.Description, Quick: rep.Exp.Quick, RowsTotal: rep.Rows.Total, RowsOK: rep.Rows.OK,
		RowsExcluded: rep.Rows.ByStatus, Reference: rep.Reference, Interval: CINote,
		Checks: []sidecarCheck{}, Figures: []sidecarFigure{}, Comparisons: append([]FigureComparison{}, rep.Comparisons...), // [] rather than null
		Conclusions: conclusions(rep.Comparisons, rep.Results)}
	if sc.RowsExcluded == nil {
		sc.RowsExcluded = map[string]int{}
	}
	for _, r := range rep.Results {
		tol, claim := math.NaN(), check.ClaimUnstated
		switch r.Kind {
		case check.KindSlope:
			tol, claim = r.Tolerance, r.Claim.Effective()
		case check.KindCompare:
			claim = check.CompareClaim(r.Claim)
		}
		var perX []sidecarCmpPoint
		for _, p := range r.Points {
			perX = append(perX, sidecarCmpPoint{X: Number(p.X), Cell: p.Cell, Test: p.Test, TrialsA: p.NA, TrialsB: p.NB,
				MeanA: Number(p.MeanA), MeanB: Number(p.MeanB), Diff: Number(p.Diff), Lo: Number(p.Lo), Hi: Number(p.Hi),
				P: Number(p.P), PHolm: Number(p.PHolm), Verdict: p.Verdict})
		}
		sc.Checks = append(sc.Checks, sidecarCheck{Label: r.Label(), Kind: r.Kind, Claim: claim, Metric: r.Metric,
			Algorithm: r.Algorithm, Vs: r.Vs, Where: whereText(r.Where),
			Expected: Number(r.Threshold()), Tolerance: Number(tol), Fitted: Number(r.Fitted), Lo: Number(r.Lo), Hi: Number(r.Hi),
			ExpectedText: r.ExpectedText(), Points: r.N, Trials: check.TrialsText(r.TrialsMin, r.TrialsMax),
			Verdict: r.Verdict, Role: r.Role, Reason: r.Reason,
			PPass: Number(r.PPass), Resamples: r.Resamples, LackOfFit: sidecarLOF{Number(r.LackOfFit.Chi2), r.LackOfFit.DF, Number(r.LackOfFit.P)}, Figure: rep.figureFor(r.Check), Against: r.Against, PerX: perX,
			Detect: Number(r.Detect), Power: Number(r.Power), PowerTrials: r.PowerTrials})
	}
	for _, f := range rep.Figures {
		sc.Figures = append(sc.Figures, sidecarFigure{Name: f.Name, Kind: cmp.Or(f.Figure.Kind, FigureCurve), X: f.Figure.X, Y: f.Figure.Y, PNG: f.PNG,
			SVG: f.SVG, PDF: f.PDF, Points: f.Points, Dropped: f.Dropped, Note: f.Note, Err: f.Err})
	}
	return sc
}
