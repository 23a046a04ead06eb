package catalog

import (
	"expmech/problems"
	"expmech/problems/extlinear"
	"expmech/problems/geomedian"
	"expmech/problems/glm"
	"expmech/problems/glmdata"
	"expmech/problems/l1"
	"expmech/problems/linear"
	"expmech/problems/quadratic"
	"expmech/problems/residual"
)

// All returns the generators in registry order: linear, l1, extended-linear, glm,
// lowrank, geometric-median, quadratic, glm-data, residual.
func All() []problems.Generator {
	return []problems.Generator{
		linear.New(),
		l1.New(),
		extlinear.New(),
		glm.GLM(),
		glm.LowRank(),
		geomedian.New(),
		quadratic.New(),
		glmdata.New(),
		residual.New(),
	}
}
