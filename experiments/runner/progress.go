package runner

import (
	"fmt"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress reports finished rows: a bar with ETA on a terminal, otherwise one plain line
// per Interval (DESIGN.md "Command line").
type progress struct {
	o           Options
	name        string
	total, done int
	errs        int
	start, last time.Time
	bar         *progressbar.ProgressBar
}

func newProgress(o Options, name string, total, skipped int) *progress {
	p := &progress{o: o, name: name, total: total, done: skipped, start: time.Now()}
	p.last = p.start
	if o.Interval <= 0 {
		p.o.Interval = 10 * time.Second
	}
	if o.Progress != nil && o.Terminal {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(o.Progress),
			progressbar.OptionSetDescription(name),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(o.Progress) }),
		)
		if skipped > 0 {
			p.bar.Set(skipped)
		}
	}
	return p
}

func (p *progress) add(isErr bool) {
	p.done++
	if isErr {
		p.errs++
	}
	switch {
	case p.bar != nil:
		p.bar.Add(1)
	case p.o.Progress != nil:
		if now := time.Now(); now.Sub(p.last) >= p.o.Interval {
			p.last = now
			p.line(now)
		}
	}
}

func (p *progress) line(now time.Time) {
	el := now.Sub(p.start)
	eta := "?"
	if p.done > 0 {
		eta = (time.Duration(float64(el) / float64(p.done) * float64(p.total-p.done))).Round(time.Second).String()
	}
	fmt.Fprintf(p.o.Progress, "%s: %d/%d rows (%.0f%%), %d errors, elapsed %s, eta %s\n",
		p.name, p.done, p.total, 100*float64(p.done)/float64(max(p.total, 1)), p.errs, el.Round(time.Second), eta)
}

func (p *progress) finish() {
	switch {
	case p.bar != nil:
		p.bar.Finish()
	case p.o.Progress != nil:
		p.line(time.Now())
	}
}
