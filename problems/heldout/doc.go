// Package heldout estimates population risk for task: sco from a large held-out sample
// drawn from the same distribution as the training data (issue #4; DESIGN.md "Seeds": the
// sample is drawn from the problem stream, so every algorithm of a trial shares it).
package heldout
