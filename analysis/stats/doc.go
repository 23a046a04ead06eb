// Package stats holds the statistics of the analysis, free of rows, checks and reports
// (the benchmath of golang.org/x/perf's split): summaries, t tests, multiplicity
// adjustments, log-log fits, the power of a CI decision, the percentile-bootstrap
// primitives, the regime map's paired probability of improvement and sign test, and the
// privacy audit's Clopper–Pearson bounds, threshold tests and Kolmogorov–Smirnov
// statistics (PRIVACY.md §3.2, §4.2; the one-sample statistic is gauss.KSD).
//
// Numerics come from gonum (stat, distuv, mathext); Mean and the median of Summarize from
// montanaflynn/stats. Every function is a pure function of its arguments; the bootstrap
// primitives take a sorted sample of resamples, drawn by the caller's *rand.Rand.
package stats
