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
