// Package task names what a cell of an experiment measures: the excess empirical risk
// (erm; GLL22 §6.1 Thm 6.4, LLL24 Thm 2.2) or the excess population risk of stochastic
// convex optimization (sco; GLL22 §6.3 Thm 6.8–6.9). The choice selects the
// calibration theorem of the exponential mechanism and the utility columns of a row
// (DESIGN.md "Spec schema").
//
// It is a leaf shared by the spec decoder (experiments), the problems and the
// mechanisms, so that the value is typed from the YAML to the calibration.
package task
