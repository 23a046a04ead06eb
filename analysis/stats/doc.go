// Package stats holds the statistics of the analysis, free of rows, checks and reports
// (the benchmath of golang.org/x/perf's split): sample summaries with Student-t
// confidence intervals (Summarize, TCrit), t tests (WelchT, PairedT, DiffCI), the
// multiplicity adjustments (HolmAdjust, BenjaminiHochberg), log-log least squares
// (FitLogLogInto), the percentile-bootstrap primitives (BootstrapCI, TailP, MCUndecided), the
// paired probability of improvement with its bootstrap CI and the exact sign test of the
// regime map (ProbImprovement, ProbImprovementCI, SignTestP), the
// privacy audit's binomial bounds and threshold tests (Clopper–Pearson, MuLowerBound,
// EpsLowerBound, ChooseThreshold; PRIVACY.md §3.2), the two-sample Kolmogorov–Smirnov
// statistic, its p value and the one-sample noise floor and critical value (PRIVACY.md §4.2;
// the one-sample statistic is gauss.KSD), and the one normal quantile (NormalQuantile, gonum
// distuv).
//
// Numerics come from gonum (stat, distuv, mathext); Mean and the median of Summarize from
// montanaflynn/stats. Every function is a pure function of its arguments; the bootstrap
// primitives take a sorted sample of resamples, drawn by the caller's *rand.Rand.
package stats
