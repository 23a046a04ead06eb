package runner

import (
	"cmp"
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"expmech/algorithms"
	"expmech/problems"
	"expmech/rows"
)

// StatisticsColumn holds the audit statistics of a problems.Audited instance: the
// Batch() values S(x) of one trial's runs, space-separated, in run order.
const StatisticsColumn = "statistics"

// runTrial runs one algorithm for one trial. On an ordinary instance that is one
// runMechanism. On a problems.Audited instance (a privacy-audit canary) the mechanism runs
// batch times (the entry's audit_batch, else the instance's Batch()), each run on a fresh
// counter and all drawing in order from the trial's one mechanism stream rng, so the
// batch is a deterministic function of the trial's seed;
// the row then holds the statistics of every run (StatisticsColumn), the summed query
// counts and wall time, and the Record and point of the last run (the calibration is the
// same for every run). The first failing run fails the row.
func runTrial(ctx context.Context, env algorithms.Env, m algorithms.Mechanism, inst problems.Instance, pl planned, batch int, rng *rand.Rand, r rows.Row) ([]float64, algorithms.Record, time.Duration, error) {
	au, ok := inst.(problems.Audited)
	if !ok {
		return runMechanism(ctx, env, m, inst, pl, rng, r)
	}
	n := cmp.Or(batch, au.Batch())
	var sb strings.Builder
	sb.Grow(24 * n)
	var vq, gq int64
	var total time.Duration
	var (
		x   []float64
		rec algorithms.Record
		err error
	)
	for k := 0; k < n; k++ {
		var wall time.Duration
		x, rec, wall, err = runMechanism(ctx, env, m, inst, pl, rng, r)
		total += wall
		v, _ := strconv.ParseInt(r["value_queries"], 10, 64)
		g, _ := strconv.ParseInt(r["gradient_queries"], 10, 64)
		vq, gq = vq+v, gq+g
		if err != nil || ctx.Err() != nil {
			break
		}
		if k > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(rows.Float(au.Statistic(x)))
	}
	r["value_queries"] = strconv.FormatInt(vq, 10)
	r["gradient_queries"] = strconv.FormatInt(gq, 10)
	if err == nil {
		r[StatisticsColumn] = sb.String()
	}
	return x, rec, total, err
}
