// Package plot draws the harness's figures with gonum/plot: mean ±
// 95% CI error bars per series on (log-)log axes, the theorem's bound as a thin grey
// dashed line named at its end and the theory's slope as dotted reference lines, frontier
// scatter plots with two-way error bars and a Pareto front per cell, and forest plots (a categorical y axis). Each figure is written as
// PNG, SVG and PDF in a one- or two-column size preset (3.5 in or 7 in wide).
//
// Paper rules it enforces: a method keeps one colour everywhere (StyleOf: the Okabe–Ito
// colour-blind-safe palette, Okabe & Ito 2008, keyed by the method's name, never by the
// series' order; a method without a registered colour takes, in an experiment's Key, a
// spare colour no other method of the experiment has); a variant label of a method keeps the method's colour with its own
// marker and dashes; the title wraps (and shrinks) to the width; the legend sits under the
// plot in as many columns as fit, with the caption (interval type, trial count) below it;
// a confidence bound beyond a log axis is drawn to the edge and ends in an arrow head;
// tick labels use one format per axis (plain, or 10ᵏ for all). Golden images
// (testdata/*_golden.*, compared with gonum/plot/cmpimg; regenerate with
// `go test ./analysis/plot -run Golden -regen`) keep the look, colours included.
//
// It knows nothing about rows: package analysis computes the series and calls Save.
package plot
