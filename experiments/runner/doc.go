// Package runner executes an expanded experiment spec (DESIGN.md "Data flow", "Seeds and
// determinism", "Output files"): the (cell, algorithm, trial) rows on a worker pool,
// longest predicted first (schedule.go), the algorithms of a trial on its one instance and
// its mechanism stream (common random numbers, runRow), through a calibration cache
// (calibStore), a journal that -resume reads back, shards and their merge, and a
// content-addressed result cache (cache.go), into a results.csv written atomically and
// byte-identical for any worker count, shard split or interruption (only the *_seconds
// columns differ); one run (or merge) at a time writes a folder (lockFolder). It re-derives
// every row's guarantee (algorithms.Certify) and reaches concrete generators and
// mechanisms, and the tuning protocol (Registry.Tune), only through a Registry built in
// run.go.
package runner
