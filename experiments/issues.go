package experiments

import (
	"fmt"
	"strconv"
	"strings"
)

// An Issue is one problem found in a spec: where it is (file, line when known, key path)
// and what is wrong.
type Issue struct {
	File string
	Line int    // 1-based; 0 when unknown
	Key  string // key path such as "problem.radius" or "algorithms[1].steps"; "" for the whole file
	Msg  string
}

func (i Issue) String() string {
	s := i.File
	if i.Line > 0 {
		s += ":" + strconv.Itoa(i.Line)
	}
	if i.Key != "" {
		return s + ": " + i.Key + ": " + i.Msg
	}
	return s + ": " + i.Msg
}

// SpecError reports every problem of an invalid spec (STYLE.md 7: all at once). Its Error
// is one line; each issue in it names the file, the line when known and the key.
type SpecError struct {
	File   string
	Issues []Issue
}

func (e *SpecError) Error() string {
	parts := make([]string, len(e.Issues))
	for j, is := range e.Issues {
		parts[j] = is.String()
	}
	if len(parts) == 0 {
		return e.File + ": invalid spec"
	}
	return strings.Join(parts, "; ")
}

// issues collects Issues for one file, dropping exact duplicates (a cell-level problem
// repeated in every cell of a sweep is reported once per distinct message).
type issues struct {
	file string
	list []Issue
	seen map[string]bool
}

func newIssues(file string) *issues { return &issues{file: file, seen: map[string]bool{}} }

func (is *issues) add(line int, key, format string, args ...any) {
	i := Issue{File: is.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)}
	s := i.String()
	if is.seen[s] {
		return
	}
	is.seen[s] = true
	is.list = append(is.list, i)
}

func (is *issues) empty() bool { return len(is.list) == 0 }

func (is *issues) err() error {
	if is.empty() {
		return nil
	}
	return &SpecError{File: is.file, Issues: is.list}
}
