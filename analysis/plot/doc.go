// Package plot draws the harness's figures with gonum/plot (issue #7): mean ± 95% CI error
// bars per series on (log-)log axes, the theorem's bound as dashed lines and the theory's
// slope as dotted reference lines, with the legend outside the data area; each figure is
// written as PNG and SVG. It knows nothing about rows: package analysis computes the
// series and calls Save.
package plot
