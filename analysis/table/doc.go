// Package table turns result rows into the tables the checks and reports read (the
// benchproc of golang.org/x/perf's split): a results.csv split by status (OK, Counts:
// its RowCounts), row filters on the spec's where: (Filter), metric expressions — a column, a
// ratio "a/b" or a derived column such as lb_rate or gauss_delta (Value, Derived) — the
// groups of rows with equal vs (GroupBy, XGroups) with the percentile bootstrap over them
// that resamples trials within each group (BootstrapDist), the lack-of-fit
// statistic of a power law over groups, and the per-(cell, algorithm) summaries and paired
// differences of summary.csv and paired.csv (Summaries, Paired). It reads rows only
// (expmech/rows) and the statistics of expmech/analysis/stats.
package table
