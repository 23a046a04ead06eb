package algorithms

// Store is the runner's calibration store: Calibration returns the bytes stored under
// key, or calls compute, stores what it returns (nil: nothing, e.g. on error) and returns
// it; concurrent calls with one key compute once. A mechanism sees only keys and bytes,
// no disk: the runner keeps the answers where it likes (experiments/runner calibstore.go:
// in memory and in its on-disk cache, keyed by content and code version), so a slow
// data-independent calibration (dp-sgd's PLD noise multiplier) is computed once across
// cells, experiments, shards and reruns. Keys must name who computes (the mechanism's
// name) and every input the answer depends on.
type Store interface {
	Calibration(key string, compute func() []byte) []byte
}

// Env carries the runner's services to a mechanism, handed explicitly to Plan and Run
// (and to RunRefereed, RunReduced): the calibration store and the parallel loop of the
// run. The zero Env is the serial, in-memory environment of tests and of a single row
// (runner.RunOne): every calibration is computed where it is asked, every loop runs on
// the caller's goroutine. Neither service changes a number: a stored calibration is the
// bytes a computation returns, and a parallel loop's pieces each write their own part.
type Env struct {
	// Store shares data-independent calibrations; nil computes each one where it is asked.
	Store Store
	// Loop runs body(0), …, body(n−1), each once, on the caller's goroutine and on idle
	// worker slots of the run, returning when all have returned (a panic in a piece is
	// raised again in the caller); nil runs them in order on the caller's goroutine.
	Loop func(n int, body func(i int))
}

// Calibration asks e's Store for key, computing with compute when e has no store.
func (e Env) Calibration(key string, compute func() []byte) []byte {
	if e.Store == nil {
		return compute()
	}
	return e.Store.Calibration(key, compute)
}

// Parallel runs body(0), …, body(n−1) through e's Loop, serially when e has none.
func (e Env) Parallel(n int, body func(i int)) {
	if e.Loop == nil {
		for i := range n {
			body(i)
		}
		return
	}
	e.Loop(n, body)
}
