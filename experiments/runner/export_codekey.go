package runner

import (
	"expmech/algorithms"
	"expmech/experiments"
	"expmech/problems"
)

// RowCode is the code key of the rows of algorithm a (factory f) on problems of gen under
// the package keys keys ("" when unknown: the rows then key by the whole code version).
// The result cache keys rows with it; exported for the tests of the wiring.
func RowCode(keys map[string]string, gen problems.Generator, f algorithms.Factory, a experiments.Algorithm) string {
	return codeKeys(keys).rowCode(gen, f, a)
}
