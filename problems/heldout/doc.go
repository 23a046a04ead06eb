// Package heldout estimates population quantities for task: sco from a large held-out
// sample: the risk (the mean loss) and, for a linear classifier, the accuracy, each with
// its standard error (DESIGN.md "Seeds": a generated sample is drawn from the
// problem stream, so every algorithm of a trial shares it; a data file's held-out rows are
// its fixed public test split).
package heldout
