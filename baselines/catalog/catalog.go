package catalog

import (
	"expmech/algorithms"
	"expmech/baselines/bst14"
	"expmech/baselines/dpsgd"
	"expmech/baselines/dpzero"
	"expmech/baselines/noisygd"
	"expmech/baselines/nonprivate"
	"expmech/baselines/perturb"
	"expmech/baselines/phased"
)

// All returns the baselines' factories in a stable order (the DESIGN.md order of names).
func All() []algorithms.Factory {
	return []algorithms.Factory{
		noisygd.Factory(),
		dpsgd.Factory(),
		bst14.Factory(),
		phased.Factory(),
		perturb.OutputFactory(),
		perturb.ObjectiveFactory(),
		dpzero.Factory(),
		nonprivate.Factory(),
	}
}
