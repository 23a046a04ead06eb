package catalog

import (
	"expmech/problems"
	"expmech/problems/extlinear"
	"expmech/problems/geomedian"
	"expmech/problems/glm"
	"expmech/problems/glmdata"
	"expmech/problems/l1"
	"expmech/problems/linear"
)

// All returns the generators in registry order: linear, l1, extended-linear, glm,
// lowrank, geometric-median, glm-data.
func All() []problems.Generator {
	return []problems.Generator{
		linear.New(),
		l1.New(),
		extlinear.New(),
		glm.GLM(),
		glm.LowRank(),
		geomedian.New(),
		glmdata.New(),
	}
}
