// Command samerows checks that two result trees hold the same rows: the check a refactor
// must pass ("results byte-identical"). For every CSV file under the base directory it
// reads the file of the same relative path under the new directory, drops the columns
// whose name ends in "_seconds" and the rows whose "metric" cell does (summary.csv's
// statistics of wall-clock times: the one thing a rerun may change), and compares the rest
// cell by cell, as text. The result cache (.cache) is skipped.
//
//	go run ./scripts/samerows BASE NEW
//
// It prints one line per file that differs (first differing row and column) and a
// summary, and exits 1 when any file differs or is missing, 2 on bad usage.
package main

import (
	"encoding/csv"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: samerows BASE NEW")
		os.Exit(2)
	}
	base, next := os.Args[1], os.Args[2]
	files, bad := 0, 0
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".cache" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".csv") {
			return nil
		}
		rel, _ := filepath.Rel(base, p)
		files++
		if msg := compare(p, filepath.Join(next, rel)); msg != "" {
			bad++
			fmt.Printf("DIFF %s: %s\n", rel, msg)
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "samerows:", err)
		os.Exit(2)
	}
	fmt.Printf("%d CSV files compared (*_seconds columns and metric rows dropped): %d identical, %d differ\n", files, files-bad, bad)
	if bad > 0 || files == 0 {
		os.Exit(1)
	}
}

// compare returns "" when the two files hold the same table once the *_seconds columns
// are dropped, else where they first differ.
func compare(a, b string) string {
	ta, err := read(a)
	if err != nil {
		return err.Error()
	}
	tb, err := read(b)
	if err != nil {
		return err.Error()
	}
	if len(ta) != len(tb) {
		return fmt.Sprintf("%d rows, want %d", len(tb), len(ta))
	}
	for i := range ta {
		if len(ta[i]) != len(tb[i]) {
			return fmt.Sprintf("row %d: %d columns, want %d", i, len(tb[i]), len(ta[i]))
		}
		for j := range ta[i] {
			if ta[i][j] != tb[i][j] {
				return fmt.Sprintf("row %d column %q: %q, want %q", i, ta[0][j], tb[i][j], ta[i][j])
			}
		}
	}
	return ""
}

// read returns the table of a CSV file without its *_seconds columns and without the rows
// whose metric is a *_seconds column.
func read(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		return recs, nil
	}
	var keep []int
	metric := -1
	for j, h := range recs[0] {
		if !strings.HasSuffix(h, "_seconds") {
			keep = append(keep, j)
		}
		if h == "metric" {
			metric = j
		}
	}
	out := make([][]string, 0, len(recs))
	for i, rec := range recs {
		if i > 0 && metric >= 0 && metric < len(rec) && strings.HasSuffix(rec[metric], "_seconds") {
			continue
		}
		row := make([]string, 0, len(keep))
		for _, j := range keep {
			if j < len(rec) {
				row = append(row, rec[j])
			}
		}
		out = append(out, row)
	}
	return out, nil
}
