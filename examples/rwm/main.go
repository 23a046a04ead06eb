// Command rwm is the expmech harness with one more sampler, random-walk Metropolis,
// registered from this module of its own (EXTENDING.md "Your own module"): every flag of
// expmech works, and a spec names the sampler as `sampler: rwm` under expmech.
//
//	go run . -exp rwm.yaml -quick     # rwm against the built-in samplers and baselines
//	go run . -list                    # rwm listed among the samplers
package main

import (
	"os"

	"expmech/algorithms"
	"expmech/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, components()))
}

// components are this module's registry entries.
func components() cli.Components {
	return cli.Components{Samplers: []algorithms.Sampler{RWM{}}}
}
