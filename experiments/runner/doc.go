// Package runner executes an expanded experiment spec (DESIGN.md "Data flow", "Seeds and
// determinism", "Output files"): a worker pool over (cell, algorithm, trial) jobs,
// dispatched longest-predicted-first by the plans' cost model (schedule.go), the
// algorithms of a trial sharing its instance, generated once from the problem stream, and
// each starting afresh on the trial's mechanism stream (common random numbers); each
// calibration computed once per distinct input through an on-disk calibration cache
// (calibStore); a journal flushed per finished row that -resume reads back; shards
// (-shard I/N) and their merge; and the final results.csv, written atomically and
// byte-identical for any worker count, shard split or interruption (only the *_seconds
// columns differ). A content-addressed result cache (cache.go) recomputes only the rows
// whose inputs changed; one run (or merge) at a time writes a folder (lockFolder).
// Provenance names the code. The runner re-derives every row's guarantee
// (algorithms.Certify). It reaches concrete generators and mechanisms, and the tuning
// protocol (Registry.Tune), only through a Registry built in run.go.
package runner
