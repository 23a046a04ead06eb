// Package deps pins the module dependencies until every package that uses them has landed; delete it then.
package deps

import (
	_ "github.com/montanaflynn/stats"
	_ "github.com/schollz/progressbar/v3"
	_ "golang.org/x/term"
	_ "gonum.org/v1/gonum/dsp/fourier"
	_ "gonum.org/v1/gonum/mat"
	_ "gonum.org/v1/gonum/optimize"
	_ "gonum.org/v1/gonum/stat/distuv"
	_ "gonum.org/v1/plot"
	_ "gonum.org/v1/plot/plotter"
	_ "gopkg.in/yaml.v3"
)
