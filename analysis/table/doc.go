// Package table turns result rows into the tables the checks and reports read (the
// benchproc of golang.org/x/perf's split): rows split by status (OK, Counts), where:
// filters (Filter), metric expressions — a column, a ratio "a/b" or a derived column such
// as lb_rate or gauss_delta (Value, Derived) — the groups of rows with equal vs and the
// bootstrap over them, and the summaries and paired differences of summary.csv and
// paired.csv. It reads rows only (expmech/rows) and the statistics of expmech/analysis/stats.
package table
