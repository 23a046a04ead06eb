package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"expmech/analysis/check"
	"expmech/analysis/table"
)

// htmlStyle and htmlScript are inlined in the experiment pages and the index: the HTML
// reports are self-contained (figures inlined as SVG; links to the PNG/PDF files and the
// CSVs are relative and optional).
const htmlStyle = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;margin:1.5em auto;max-width:1100px;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ddd}h3{font-size:1.05em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0;width:100%}
th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4;cursor:pointer;user-select:none;white-space:nowrap}
th.asc::after{content:" ▲"}th.desc::after{content:" ▼"}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr:nth-child(even) td{background:#fafafa}
.pass{color:#006d3b;font-weight:600}.fail{color:#b00020;font-weight:600}.inconclusive{color:#8a6d00;font-weight:600}.measured{color:#1a4f8a;font-weight:600}
figure{margin:1em 0;padding:.5em;border:1px solid #eee}figure svg{width:100%;max-width:900px;height:auto;display:block}
figcaption{font-size:.85em;color:#444}
pre{background:#f6f6f6;padding:.6em;overflow:auto;font-size:.8em;max-height:28em}
input.filter{margin:.3em 0;padding:.2em .4em;width:20em}
.muted{color:#666;font-size:.9em}
`

const htmlScript = `
document.querySelectorAll("table.sortable").forEach(function(t){
  t.querySelectorAll("th").forEach(function(th,i){
    th.addEventListener("click",function(){
      var asc=!th.classList.contains("asc");
      t.querySelectorAll("th").forEach(function(h){h.classList.remove("asc","desc")});
      th.classList.add(asc?"asc":"desc");
      var body=t.tBodies[0],rs=Array.prototype.slice.call(body.rows);
      rs.sort(function(a,b){
        var x=a.cells[i].getAttribute("data-v")||a.cells[i].textContent,y=b.cells[i].getAttribute("data-v")||b.cells[i].textContent;
        var p=parseFloat(x),q=parseFloat(y),c;
        if(!isNaN(p)&&!isNaN(q)&&isFinite(x)&&isFinite(y)){c=p-q}else{c=x.localeCompare(y)}
        return asc?c:-c});
      rs.forEach(function(r){body.appendChild(r)})})})});
document.querySelectorAll("input.filter").forEach(function(inp){
  inp.addEventListener("input",function(){
    var t=document.getElementById(inp.getAttribute("data-table")),q=inp.value.toLowerCase();
    Array.prototype.forEach.call(t.tBodies[0].rows,function(r){r.style.display=r.textContent.toLowerCase().indexOf(q)<0?"none":""})})});
`

type htmlCell struct {
	Text  string
	Sort  string // data-v: the full-precision number ("" for text)
	Class string
	Href  string // makes the cell a relative link
}

type htmlTable struct {
	ID     string
	Head   []string
	Rows   [][]htmlCell
	Filter bool
}

type htmlFigure struct {
	Name, Caption string
	SVG           template.HTML // the inlined SVG document ("" if not drawn)
	PNG, PDF      string        // relative links
	Err           string
}

type htmlComparison struct {
	Figure, Conclusion string
	Table              *htmlTable
}

type htmlPage struct {
	Title, Description string
	Style              template.CSS
	Script             template.JS
	Rows               string
	DecisionRule       string
	Checks             *htmlTable
	Figures            []htmlFigure
	Summary            *htmlTable
	Paired             *htmlTable
	Comparison         []htmlComparison
	ComparisonRule     string
	Spec, Manifest     string
	Files              []string
	// Index only.
	Experiments *htmlTable
	Scoreboard  *htmlTable
	Totals      string
}

var htmlTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{{.Title}}</title><style>{{.Style}}</style></head><body>
<h1>{{.Title}}</h1>
{{if .Description}}<p>{{.Description}}</p>{{end}}
{{if .Rows}}<p class="muted">{{.Rows}}</p>{{end}}
{{if .Totals}}<p><strong>{{.Totals}}</strong></p>{{end}}
{{define "table"}}{{if .Filter}}<input class="filter" placeholder="filter rows…" data-table="{{.ID}}">{{end}}
<table class="sortable" id="{{.ID}}"><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td{{if .Class}} class="{{.Class}}"{{end}}{{if .Sort}} data-v="{{.Sort}}"{{end}}>{{if .Href}}<a href="{{.Href}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}
{{with .Experiments}}<h2>Experiments</h2>{{template "table" .}}{{end}}
{{with .Scoreboard}}<h2>Scoreboard</h2><p class="muted">Every check of every experiment; click a column to sort.</p>{{template "table" .}}{{end}}
{{with .Checks}}<h2>Checks</h2><p class="muted">{{$.DecisionRule}}</p>{{template "table" .}}{{end}}
{{if .Comparison}}<h2>Comparison</h2><p class="muted">{{.ComparisonRule}}</p>{{range .Comparison}}<h3>{{.Figure}}</h3><p>{{.Conclusion}}</p>{{with .Table}}{{template "table" .}}{{end}}{{end}}{{end}}
{{if .Figures}}<h2>Figures</h2>{{range .Figures}}<figure id="fig-{{.Name}}"><h3>{{.Name}}</h3>
{{if .SVG}}{{.SVG}}<figcaption>{{.Caption}}{{if .PNG}} — <a href="{{.PNG}}">PNG</a>{{end}}{{if .PDF}} · <a href="{{.PDF}}">PDF</a>{{end}}</figcaption>
{{else}}<p>Not drawn: {{.Err}}.</p>{{end}}</figure>
{{end}}{{end}}
{{with .Summary}}<h2>Summary</h2><p class="muted">Per cell and algorithm: mean and 95% CI (Student t) over trials, for the metrics of the checks and figures and the risks; every metric is in summary.csv.</p>{{template "table" .}}{{end}}
{{with .Paired}}<h2>Paired differences</h2><p class="muted">Same cell and trial (common random numbers): algorithm − reference.</p>{{template "table" .}}{{end}}
{{if .Spec}}<h2>Spec</h2><pre>{{.Spec}}</pre>{{end}}
{{if .Manifest}}<h2>Manifest</h2><pre>{{.Manifest}}</pre>{{end}}
{{if .Files}}<h2>Files</h2><ul>{{range .Files}}<li><a href="{{.}}">{{.}}</a></li>{{end}}</ul>{{end}}
<script>{{.Script}}</script>
</body></html>
`))

func numCell(v float64) htmlCell {
	return htmlCell{Text: table.FmtG(v), Sort: ff(v), Class: "num"}
}

func intCell(n int) htmlCell {
	return htmlCell{Text: strconv.Itoa(n), Sort: strconv.Itoa(n), Class: "num"}
}

func textCell(s string) htmlCell { return htmlCell{Text: s} }

// verdictCell is the verdict in the style sheet's class of its name in lower case.
func verdictCell(v check.Verdict) htmlCell {
	return htmlCell{Text: v.String(), Class: strings.ToLower(v.String())}
}

var svgProlog = regexp.MustCompile(`(?s)^\s*(<\?xml[^>]*\?>\s*)?(<!--.*?-->\s*)?(<!DOCTYPE[^>]*>\s*)?`)

// inlineSVG reads an SVG file without its XML prolog.
func inlineSVG(path string) (template.HTML, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	b = svgProlog.ReplaceAll(b, nil)
	if !bytes.HasPrefix(b, []byte("<svg")) {
		return "", fmt.Errorf("%s: not an SVG document", path)
	}
	return template.HTML(b), nil // our own gonum/plot output
}

func (rep report) writeHTML(dir, figDir string) error {
	e := rep.Exp
	pg := htmlPage{Title: experimentTitle(e), Description: e.Description, Style: template.CSS(htmlStyle), Script: template.JS(htmlScript),
		DecisionRule: DecisionRule + " " + RoleRule, Spec: e.Spec, Rows: rep.rowsText(),
		Comparison: htmlComparisons(rep.Comparisons), ComparisonRule: ComparisonRule, Figures: rep.htmlFigures(dir, figDir)}
	if len(rep.Results) > 0 {
		pg.Totals, pg.Checks = rep.htmlChecks()
	}
	swept := table.SweptColumns(identities(rep.Summaries))
	if len(rep.Summaries) > 0 {
		pg.Summary = rep.htmlSummary(swept)
	}
	if len(rep.Paired) > 0 {
		pg.Paired = rep.htmlPaired(swept)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err == nil {
		pg.Manifest = manifestText(b)
	}
	for _, f := range []string{"results.csv", "summary.csv", "paired.csv", "checks.csv", "analysis.json", "report.md", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil || f == "report.md" || f == "analysis.json" {
			pg.Files = append(pg.Files, f)
		}
	}
	var buf bytes.Buffer
	if err := htmlTmpl.Execute(&buf, pg); err != nil {
		return fmt.Errorf("analysis: report.html: %w", err)
	}
	return writeFileAtomic(filepath.Join(dir, "report.html"), buf.Bytes())
}

func (rep report) htmlChecks() (string, *htmlTable) {
	tally, mult := rep.tally()
	totals := fmt.Sprintf("%s: %s. Within this experiment. %s", check.Count(len(rep.Results), "check"), tally.Text(), mult.Text())
	t := &htmlTable{ID: "checks", Head: []string{"#", "claim", "where", "kind", "expected", "fitted", "CI low", "CI high", "points", "result", "role", "p (PASS)", "reason", "figure"}}
	for i, r := range rep.Results {
		exp := numCell(r.Threshold())
		if r.Kind == check.KindSlope {
			exp.Text += " ± " + table.FmtG(r.Tolerance)
		}
		fig := rep.figureFor(r.Check)
		t.Rows = append(t.Rows, []htmlCell{intCell(i), textCell(r.Label()),
			textCell(whereText(r.Where)), textCell(r.Kind.String()), exp, numCell(r.Fitted), numCell(r.Lo), numCell(r.Hi),
			intCell(r.N), verdictCell(r.Verdict), textCell(r.Role.String()), numCell(r.PPass), textCell(r.Reason), textCell(fig)})
	}
	return totals, t
}

func (rep report) htmlFigures(dir, figDir string) []htmlFigure {
	var out []htmlFigure
	for _, f := range rep.Figures {
		hf := htmlFigure{Name: f.Name, Err: f.Err}
		if f.SVG != "" {
			svg, err := inlineSVG(filepath.Join(figDir, f.SVG))
			if err != nil {
				hf.Err = err.Error()
			} else {
				hf.SVG, hf.PNG = svg, relSlash(dir, filepath.Join(figDir, f.PNG))
				if f.PDF != "" {
					hf.PDF = relSlash(dir, filepath.Join(figDir, f.PDF))
				}
			}
		}
		hf.Caption = AxisLabel(f.Figure.Y) + " vs " + AxisLabel(f.Figure.X) // the interval and trials are in the figure
		if f.Dropped > 0 {
			hf.Caption += fmt.Sprintf("; %d points left out (missing, or non-positive on a log axis)", f.Dropped)
		}
		out = append(out, hf)
	}
	return out
}

// htmlSummary is the primary metrics' summaries, the swept columns as numbers.
func (rep report) htmlSummary(swept []string) *htmlTable {
	head := append(append([]string{"cell"}, swept...),
		"algorithm", "metric", "trials", "mean", "CI low", "CI high", "std", "median")
	t := &htmlTable{ID: "summary", Head: head, Filter: true}
	for _, s := range rep.Summaries {
		if !isPrimary(s.Metric, rep.Exp) {
			continue
		}
		row := []htmlCell{textCell(s.Cell)}
		for _, kv := range s.Identity { // in IdentityColumns order, as swept
			if slices.Contains(swept, kv.Col) {
				v, _ := table.Num(kv.Value)
				row = append(row, htmlCell{Text: table.FmtShort(kv.Value), Sort: ff(v), Class: "num"})
			}
		}
		row = append(row, textCell(s.Algorithm), textCell(s.Metric), intCell(s.N),
			numCell(s.Mean), numCell(s.Lo), numCell(s.Hi), numCell(s.Std), numCell(s.Median))
		t.Rows = append(t.Rows, row)
	}
	return t
}

func (rep report) htmlPaired(swept []string) *htmlTable {
	t := &htmlTable{ID: "paired", Head: []string{"cell", "algorithm", "reference", "metric", "pairs", "mean diff", "CI low", "CI high", "reference better"}, Filter: true}
	for _, p := range rep.Paired {
		if !isPrimary(p.Metric, rep.Exp) {
			continue
		}
		t.Rows = append(t.Rows, []htmlCell{textCell(cellText(p.Cell, p.Identity, swept)), textCell(p.Algorithm), textCell(p.Reference),
			textCell(p.Metric), intCell(p.N), numCell(p.Mean), numCell(p.Lo), numCell(p.Hi),
			textCell(fmt.Sprintf("%d/%d", p.RefBetter, p.N))})
	}
	return t
}

// manifestText is manifest.json without the spec (shown in its own section), indented.
func manifestText(b []byte) string {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return string(b)
	}
	if _, ok := m["spec"]; ok {
		m["spec"] = "(the spec is shown above)"
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return string(b)
	}
	return string(out)
}

// WriteHTMLIndex writes outPath (index.html): each experiment's tally, linked to its
// report.html, and every check.
func WriteHTMLIndex(resultsRoot, outPath string) error {
	entries, err := os.ReadDir(resultsRoot)
	if err != nil {
		return fmt.Errorf("analysis: %w", err)
	}
	outDir := filepath.Dir(outPath)
	pg := htmlPage{Title: "expmech — results", Style: template.CSS(htmlStyle), Script: template.JS(htmlScript),
		Description: "Claims of Gopi–Lee–Liu 2022 (GLL22) and Lee–Liu–Lu 2024 (LLL24) checked by the experiment specs. " + DecisionRule + " " + RoleRule}
	exps := &htmlTable{ID: "experiments", Head: []string{"experiment", "description", "checks", "claims PASS", "claims FAIL",
		"claims INCONCLUSIVE", "invariants", "measurements", "rows", "ok rows", "report"}}
	score := &htmlTable{ID: "scoreboard", Head: []string{"experiment", "check", "where", "expected", "fitted", "CI low", "CI high", "points", "result (Holm)", "raw", "role", "p (PASS)", "p (Holm)", "reason"}, Filter: true}
	var tally check.Tally
	var scs []sidecar
	for _, en := range entries {
		if !en.IsDir() {
			continue
		}
		sc, ok, err := readSidecar(resultsRoot, en.Name())
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		scs = append(scs, sc)
		link := relSlash(outDir, filepath.Join(resultsRoot, en.Name(), "report.html"))
		var et check.Tally
		for _, c := range sc.Checks {
			et.Add(c.Role, c.Verdict)
			tally.Add(c.Role, c.Verdict)
			exp := numCell(float64(c.Expected))
			if c.Kind == check.KindSlope {
				exp.Text += " ± " + c.Tolerance.String()
			}
			score.Rows = append(score.Rows, []htmlCell{{Text: sc.Name, Href: link}, textCell(c.Label), textCell(c.Where), exp,
				numCell(float64(c.Fitted)), numCell(float64(c.Lo)), numCell(float64(c.Hi)),
				intCell(c.Points), {}, verdictCell(c.Verdict), textCell(c.Role.String()), numCell(float64(c.PPass)), {}, textCell(c.Reason)})
		}
		exps.Rows = append(exps.Rows, []htmlCell{{Text: sc.Name, Href: link}, textCell(sc.Description), intCell(len(sc.Checks)), intCell(et.Claims[check.Pass]),
			intCell(et.Claims[check.Fail]), intCell(et.Claims[check.Inconclusive]), intCell(et.InvariantChecks()),
			intCell(et.Measurements), intCell(sc.RowsTotal), intCell(sc.RowsOK), {Text: "report.html", Href: link}})
	}
	slices.SortFunc(exps.Rows, func(a, b []htmlCell) int { return strings.Compare(a[0].Text, b[0].Text) })
	pg.Experiments, pg.Scoreboard = exps, score
	mult := suiteMultiplicity(scs)
	var holm check.Tally
	k := 0
	eachCheck(scs, mult, func(_ sidecar, _ int, c sidecarCheck, adj float64) {
		v := check.HolmVerdict(c.Verdict, c.Role, adj)
		holm.Add(c.Role, v)
		score.Rows[k][8], score.Rows[k][12] = verdictCell(v), numCell(adj)
		k++
	})
	pg.Totals = fmt.Sprintf("%s over %s, verdicts after the Holm adjustment: %s. Before it (raw): %s. %s",
		check.Count(holm.Total(), "check"), check.Count(len(exps.Rows), "experiment"), holm.Text(), tally.Text(), mult.Text())
	if slices.ContainsFunc(scs, func(sc sidecar) bool { return sc.Quick != scs[0].Quick }) {
		pg.Title += " (QUICK and full results mixed)"
	} else if len(scs) > 0 && scs[0].Quick {
		pg.Title += " (QUICK mode)"
		pg.Description = "QUICK mode (-quick): every experiment ran its shrunk quick: sweep and trials; a smoke test of the pipeline, not the reproduction. " + pg.Description
	} else if len(scs) > 0 {
		pg.Title += " (full mode)"
	}
	var buf bytes.Buffer
	if err := htmlTmpl.Execute(&buf, pg); err != nil {
		return fmt.Errorf("analysis: index.html: %w", err)
	}
	return writeFileAtomic(outPath, buf.Bytes())
}
