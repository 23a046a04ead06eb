package sampler

import (
	"fmt"
	"strings"

	"expmech/algorithms"
)

// All returns every sampler of this package, in a stable order (the -list order).
func All() []algorithms.Sampler {
	return []algorithms.Sampler{ProximalRejection{}, Exact{}, MALA{}, ULA{}, BallWalk{}, HitAndRun{}}
}

// Names returns the registry names of All, in order.
func Names() []string {
	var n []string
	for _, s := range All() {
		n = append(n, s.Name())
	}
	return n
}

// ByName returns the sampler registered under name.
func ByName(name string) (algorithms.Sampler, error) {
	for _, s := range All() {
		if s.Name() == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("sampler: unknown sampler %q (have %s)", name, strings.Join(Names(), ", "))
}

// Certifies reports whether s can back a certified guarantee (an exact law, or a proven TV
// bound for certified targets). Samplers opt in with a Certifies() bool method.
func Certifies(s algorithms.Sampler) bool {
	c, ok := s.(interface{ Certifies() bool })
	return ok && c.Certifies()
}

// IsExact reports whether s draws the target law exactly (TV 0).
func IsExact(s algorithms.Sampler) bool {
	_, ok := s.(Exact)
	return ok
}
