// Package plot draws the harness's figures with gonum/plot: mean ± 95% CI error bars per
// series on (log-)log axes with the theorem's bound and the theory's slope as reference
// lines, frontier scatter plots with a Pareto front per cell, and forest plots (a
// categorical y axis), as PNG, SVG and PDF, 3.5 in or 7 in wide (Size).
//
// A method keeps one colour everywhere (StyleOf, Key: the Okabe–Ito colour-blind-safe
// palette, Okabe & Ito 2008, keyed by the method's name, never by the series' order).
// Golden images (testdata/*_golden.*, compared with gonum/plot/cmpimg; regenerate with
// `go test ./analysis/plot -run Golden -regen`) keep the look, colours included.
//
// It knows nothing about rows: package analysis computes the series and calls Save.
package plot
