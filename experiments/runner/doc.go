// Package runner executes an expanded experiment spec (DESIGN.md "Data flow", "Seeds and
// determinism", "Output files"): the (cell, algorithm, trial) rows on a worker pool,
// longest predicted first (schedule.go), a trial's algorithms on its one instance and
// mechanism stream (common random numbers, runRow), through a calibration cache, a journal
// that -resume reads back, shards and their merge, and a content-addressed result cache
// (cache.go), into a results.csv written atomically and byte-identical for any worker
// count, shard split or interruption (but the *_seconds columns); one run (or merge) at a
// time writes a folder (lockFolder). It re-derives every row's guarantee (algorithms.Certify)
// and reaches generators, mechanisms and tuning only through a Registry (cli.Registry).
package runner
