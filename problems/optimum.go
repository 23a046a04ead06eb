package problems

import "sync"

// LazyOptimum computes an Optimum on first use, once, safely for concurrent callers
// (the runner holds one Instance per (cell, trial) and every algorithm asks for it).
// Get returns a fresh copy of X so callers cannot corrupt the cache.
type LazyOptimum struct {
	once sync.Once
	f    func() (Optimum, error)
	opt  Optimum
	err  error
}

// NewLazyOptimum wraps f; f runs at most once.
func NewLazyOptimum(f func() (Optimum, error)) *LazyOptimum { return &LazyOptimum{f: f} }

// Get returns the cached optimum, computing it on the first call.
func (l *LazyOptimum) Get() (Optimum, error) {
	l.once.Do(func() { l.opt, l.err = l.f() })
	o := l.opt
	o.X = append([]float64(nil), l.opt.X...)
	return o, l.err
}
