package analysis

import "expmech/analysis/analysistest"

// The shared row fixtures (package analysistest).
var (
	recs      = analysistest.Recs
	synthRows = analysistest.SynthRows
)
