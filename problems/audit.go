package problems

// Audited is implemented by the instances of a privacy-audit canary (problems/canary): a
// fixed neighbouring dataset D or D′ on which a mechanism is run many times and only a
// scalar statistic S of each released point is kept (PRIVACY.md §3.2 steps 1–2; Jagielski
// et al. 2020, Nasr et al. 2021). The runner runs each mechanism Batch() times per trial on
// such an instance, each run on a fresh counter and drawing from the trial's mechanism
// stream in order, and writes the Batch() values of Statistic into the row's `statistics`
// column (space-separated, in run order); the analysis computes the audit bounds from them.
type Audited interface {
	// Batch is the number of mechanism runs per trial (≥ 1).
	Batch() int
	// Statistic is S(x), the test statistic of a released point x.
	Statistic(x []float64) float64
}
