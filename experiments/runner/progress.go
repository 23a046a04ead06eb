package runner

import (
	"fmt"
	"strings"
	"time"
)

// progress reports finished rows: one line redrawn in place on a terminal, otherwise one
// plain line per Interval (DESIGN.md "Command line"). The count is the true number of
// rows finished (resumed and cached rows included, so it never jumps); the percentage and
// the ETA are by predicted cost (each row weighted by its Plan's predicted queries,
// costWeights) over the rows computed by this process only, so that resumed and cached
// rows are not mistaken for speed.
type progress struct {
	o           Options
	name        string
	total, done int     // rows
	errs        int     // rows with status error
	cost, spent float64 // predicted cost to compute; of it, computed so far
	start, last time.Time
}

func newProgress(o Options, name string, total, done int, cost float64) *progress {
	p := &progress{o: o, name: name, total: total, done: done, cost: cost, start: time.Now()}
	p.last = p.start
	if p.o.Interval <= 0 {
		p.o.Interval = 10 * time.Second
		if o.Terminal {
			p.o.Interval = 200 * time.Millisecond
		}
	}
	if o.Progress != nil && done > 0 {
		fmt.Fprintf(o.Progress, "%s: %d of %d rows already done (journal or cache)\n", name, done, total)
	}
	return p
}

// add counts one computed row of predicted cost w.
func (p *progress) add(w float64, isErr bool) {
	p.done++
	p.spent += w
	if isErr {
		p.errs++
	}
	if p.o.Progress == nil {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= p.o.Interval {
		p.last = now
		p.draw(now, "")
	}
}

// frac is the fraction of the predicted cost done by this process.
func (p *progress) frac() float64 {
	if p.cost <= 0 {
		return 1
	}
	return min(p.spent/p.cost, 1)
}

func (p *progress) eta(el time.Duration) string {
	f := p.frac()
	if p.spent <= 0 || f <= 0 {
		return "?"
	}
	return time.Duration(float64(el) * (1 - f) / f).Round(time.Second).String()
}

func (p *progress) draw(now time.Time, end string) {
	el := now.Sub(p.start)
	pct := 100 * p.frac()
	msg := fmt.Sprintf("%s: %d/%d rows, %.0f%% of the predicted cost, %d errors, elapsed %s, eta %s",
		p.name, p.done, p.total, pct, p.errs, el.Round(time.Second), p.eta(el))
	if end != "" {
		msg = fmt.Sprintf("%s: %d/%d rows, %d errors, elapsed %s%s", p.name, p.done, p.total, p.errs, el.Round(time.Second), end)
	}
	if p.o.Terminal {
		const width = 20
		bar := strings.Repeat("#", int(pct/100*width)) + strings.Repeat(".", width-int(pct/100*width))
		fmt.Fprintf(p.o.Progress, "\r\x1b[K[%s] %s", bar, msg)
		if end != "" {
			fmt.Fprintln(p.o.Progress)
		}
		return
	}
	fmt.Fprintln(p.o.Progress, msg)
}

// finish prints the final count; interrupted says so instead of claiming completion.
func (p *progress) finish(interrupted bool) {
	if p.o.Progress == nil {
		return
	}
	end := ", done"
	if interrupted {
		end = fmt.Sprintf(", interrupted (%d rows missing)", p.total-p.done)
	}
	p.draw(time.Now(), end)
}
