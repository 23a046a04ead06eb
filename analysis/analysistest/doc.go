// Package analysistest holds the row fixtures the tests of the analysis packages share
// (analysis, analysis/check, analysis/report): in-memory rows parsed as the analysis reads
// them, and synthetic sweeps with a known log-log slope. It is a test kit: only _test.go
// files import it (layout_test.go).
package analysistest
