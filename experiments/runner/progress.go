package runner

import (
	"fmt"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress reports finished rows: one line redrawn in place on a terminal, otherwise one
// plain line per Interval (DESIGN.md "Command line"). The count includes resumed and
// cached rows; the percentage is of the predicted cost of the rows this process computes,
// known as their plans finish; the ETA prices the cost still to compute per algorithm at
// the seconds per cost unit observed for it (the overall rate until it has a row), divided
// by the observed parallelism. Resumed and cached rows are never counted as speed.
type progress struct {
	mu          sync.Mutex // add and finish (the collector) against planned (the plans)
	o           Options
	name        string
	total, done int     // rows
	errs        int     // rows with status error
	cost, spent float64 // predicted cost to compute; of it, computed so far
	work        float64 // row seconds (wall_seconds) of the computed rows
	algs        map[string]*algProgress
	start, last time.Time
	// bar draws the terminal bar over permille of the predicted cost; its own count, rate
	// and ETA are off: the description carries ours.
	bar *progressbar.ProgressBar
	// stop ends the ticker (tick) and stopped says it has; nil without a ticker.
	stop, stopped chan struct{}
}

// algProgress is one algorithm's predicted cost left and observed cost and seconds.
type algProgress struct{ left, cost, seconds float64 }

// newProgress starts the report of total rows, done of them already finished; left is
// each algorithm's predicted cost.
func newProgress(o Options, name string, total, done int, left map[string]float64) *progress {
	p := &progress{o: o, name: name, total: total, done: done, start: time.Now(), algs: map[string]*algProgress{}}
	for a, c := range left {
		p.algs[a] = &algProgress{left: c}
		p.cost += c
	}
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

// tick redraws the report whenever Interval passes with no row finished (plans and long
// rows would leave the run silent otherwise), until finish.
func (p *progress) tick() {
	if p.o.Progress == nil {
		return
	}
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	period := max(p.o.Interval/10, time.Millisecond)
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case now := <-t.C:
				p.mu.Lock()
				if now.Sub(p.last) >= p.o.Interval-period {
					p.last = now
					p.draw(now, "")
				}
				p.mu.Unlock()
			}
		}
	}()
}

// planned adds the predicted cost of rows of alg whose plan is now done.
func (p *progress) planned(alg string, cost float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a := p.algs[alg]
	if a == nil {
		a = &algProgress{}
		p.algs[alg] = a
	}
	a.left += cost
	p.cost += cost
}

// add counts one computed row of algorithm alg, predicted cost w, that took seconds.
func (p *progress) add(alg string, w, seconds float64, isErr bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.spent += w
	p.work += seconds
	if a := p.algs[alg]; a != nil {
		a.left -= w
		a.cost += w
		a.seconds += seconds
	}
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

// eta is the time left after el elapsed ("?" before the first computed row).
func (p *progress) eta(el time.Duration) string {
	if p.spent <= 0 || p.work <= 0 || el <= 0 {
		return "?"
	}
	rate := p.work / p.spent // seconds per cost unit, all algorithms
	left := 0.0              // row seconds still to come
	for _, a := range p.algs {
		r := rate
		if a.cost > 0 && a.seconds > 0 {
			r = a.seconds / a.cost
		}
		left += max(a.left, 0) * r
	}
	par := p.work / el.Seconds()
	return time.Duration(left / par * float64(time.Second)).Round(time.Second).String()
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
		if p.bar == nil {
			p.bar = progressbar.NewOptions64(1000, progressbar.OptionSetWriter(p.o.Progress),
				progressbar.OptionSetWidth(20), progressbar.OptionSetPredictTime(false),
				progressbar.OptionSetElapsedTime(false), progressbar.OptionShowDescriptionAtLineEnd(),
				progressbar.OptionSetRenderBlankState(true))
		}
		p.bar.Describe(msg)
		p.bar.Set64(int64(min(pct, 100) * 10))
		if end != "" {
			// Exit, not Finish: Finish would draw 100% for an interrupted run.
			p.bar.Exit()
			fmt.Fprintln(p.o.Progress)
		}
		return
	}
	fmt.Fprintln(p.o.Progress, msg)
}

// finish prints the final count; interrupted says so instead of claiming completion.
func (p *progress) finish(interrupted bool) {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.o.Progress == nil {
		return
	}
	end := ", done"
	if interrupted {
		end = fmt.Sprintf(", interrupted (%d rows missing)", p.total-p.done)
	}
	p.draw(time.Now(), end)
}
