// Package runner executes an expanded experiment spec (DESIGN.md "Data flow", "Seeds and
// determinism", "Output files"): a worker pool over (cell, algorithm, trial) jobs
// dispatched longest-predicted-first by the plans' cost model (schedule.go), the
// algorithms of a trial sharing its instance, generated once from the problem stream, and
// each starting afresh on the trial's mechanism stream (common random numbers); the
// plans, and so the data-independent calibrations, computed first on the same worker
// slots, the rows of a (cell, algorithm) ready as soon as its plan is done, a task that
// waits for another's calibration lending its slot meanwhile, and idle slots helping a
// running row's parallel loop (pool.go), each calibration once per distinct input
// through an on-disk calibration cache (calibstore.go); a journal appended
// and flushed per finished (cell, algorithm, trial) that -resume reads back (a torn last
// line is discarded); shards (-shard I/N, dealt by predicted cost) and their merge; and the final results.csv,
// sorted and written atomically, byte-identical for any worker count, shard split or
// interruption (only the *_seconds columns differ). A content-addressed result cache
// (cache.go) keys each row by what determines it, so an edited spec or an interrupted run
// recomputes only missing rows; quick runs live in a quick/ folder of their own, a
// finished run is not replaced without Force, one run (or merge) at a time writes a
// folder (an flock on its .lock; ErrBusy otherwise, lock.go), and every output goes
// through WriteFile (atomic, fsynced, mode 0644; the journal 0600). Provenance names the code (commit, dirty flag, cache
// version). On a problems.Audited instance (a privacy-audit canary) each algorithm runs
// Batch() times per trial and the row keeps the statistic of every run (batch.go). Each
// mechanism receives the oracle view it declared (problems.Counter.Oracle); a Refereed
// one (oracle tuning, the non-private reference) also gets the instance as an uncounted
// algorithms.Referee; on an instance with an exact low-rank structure on R^d a mechanism
// with a reduced path runs in r coordinates (algorithms.Reducible/RunReduced).
// The runner re-derives every row's guarantee (algorithms.Certify), sets none on a
// failed row, and publishes the planned query counts of a mechanism whose counted ones
// would reveal a secret (algorithms.Record.PlannedCounts; the counted ones are
// diagnostics). It reaches concrete
// generators and mechanisms, and the tuning protocol (Registry.Tune), only through a
// Registry built in run.go.
package runner
