// Package heldout estimates population quantities for task: sco from a large held-out
// sample: the risk and, for a linear classifier, the accuracy, with standard errors
// (DESIGN.md "Seeds": a generated sample comes from the problem stream, shared by every
// algorithm of a trial; a data file's held-out rows are its fixed public test split).
package heldout
