package experiments

import (
	"bytes"
	"cmp"
	"encoding"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// MaxSpecBytes bounds the size of a spec or config file; a larger file is rejected
// before parsing.
const MaxSpecBytes = 1 << 20

// readYAML reads path and parses it into a single YAML document, rejecting empty,
// binary, oversized and multi-document files, duplicate keys and aliases. The returned
// node is the document's root (a mapping is expected by every caller).
func readYAML(path string, is *issues) (*yaml.Node, []byte) {
	f, err := os.Open(path)
	if err != nil {
		is.add(0, "", "cannot read spec: %v", errors.Unwrap(err))
		return nil, nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSpecBytes+1))
	if err != nil {
		is.add(0, "", "cannot read spec: %v", err)
		return nil, nil
	}
	return parseYAML(data, is), data
}

// parseYAML is readYAML on bytes already read.
func parseYAML(data []byte, is *issues) *yaml.Node {
	switch {
	case len(data) > MaxSpecBytes:
		is.add(0, "", "file larger than %d bytes", MaxSpecBytes)
		return nil
	case len(bytes.TrimSpace(data)) == 0:
		is.add(0, "", "empty file")
		return nil
	case bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data):
		is.add(0, "", "not a text (UTF-8 YAML) file")
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		is.add(0, "", "empty file (only comments)")
		return nil
	} else if err != nil {
		line, msg := yamlErrLine(err)
		is.add(line, "", "YAML syntax: %s", msg)
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		is.add(extra.Line, "", "more than one YAML document")
		return nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		is.add(0, "", "empty document")
		return nil
	}
	root := doc.Content[0]
	before := len(is.list)
	walkNodes(root, func(n *yaml.Node) {
		switch {
		case n.Kind == yaml.AliasNode || n.Anchor != "":
			is.add(n.Line, "", "YAML anchors and aliases are not supported")
		case n.Kind == yaml.MappingNode:
			first := map[string]int{}
			for j := 0; j+1 < len(n.Content); j += 2 {
				k := n.Content[j]
				if k.Kind != yaml.ScalarNode {
					is.add(k.Line, "", "mapping keys must be plain strings")
					continue
				}
				if k.Value == "<<" {
					is.add(k.Line, "", "YAML merge keys (<<) are not supported")
				}
				if l, dup := first[k.Value]; dup {
					is.add(k.Line, k.Value, "duplicate key (first at line %d)", l)
					continue
				}
				first[k.Value] = k.Line
			}
		}
	})
	if len(is.list) > before { // an issue above
		return nil
	}
	if root.Kind != yaml.MappingNode {
		is.add(root.Line, "", "the top level must be a mapping of keys, got %s", kindName(root))
		return nil
	}
	return root
}

var lineRE = regexp.MustCompile(`line (\d+)`)

// yamlErrLine extracts the first "line N" of a yaml.v3 error and returns it with the
// message stripped of its "yaml: " prefix and flattened to one line.
func yamlErrLine(err error) (int, string) {
	msg := oneLine(strings.TrimPrefix(err.Error(), "yaml: "))
	line := 0
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	return line, msg
}

// walkNodes calls fn on n and every node below it (aliases are not followed).
func walkNodes(n *yaml.Node, fn func(*yaml.Node)) {
	fn(n)
	for _, c := range n.Content {
		walkNodes(c, fn)
	}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an unsupported node"
}

// validateValue calls v.Validate() when v has one, adding its (possibly joined) errors.
func validateValue(is *issues, line int, key string, v any) {
	val, ok := v.(interface{ Validate() error })
	if !ok || v == nil || (reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil()) {
		return
	}
	err := val.Validate()
	if err == nil {
		return
	}
	for _, e := range unjoin(err) {
		// A field error names its key below key (analysis.FieldError does).
		if f, ok := e.(interface{ Key() string }); ok && f.Key() != "" {
			msg := e.Error()
			if inner := errors.Unwrap(e); inner != nil {
				msg = inner.Error()
			}
			is.add(line, join(key, f.Key()), "%s", oneLine(msg))
			continue
		}
		is.add(line, key, "%s", oneLine(e.Error()))
	}
}

// unjoin returns the errors errors.Join joined into err, err alone otherwise, nil for nil.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// decodeStrict decodes n into dst (a non-nil pointer). It first walks n against dst's
// type, reporting unknown keys and mistyped scalars with their own lines and key paths;
// only when that walk is clean does it decode, and then it also re-encodes n into a fresh
// decoder with KnownFields(true) as a guard (yaml.Node.Decode ignores KnownFields,
// STYLE.md 8). It reports whether the decode succeeded.
func decodeStrict(is *issues, path string, n *yaml.Node, dst any) bool {
	before := len(is.list)
	checkNode(is, path, n, reflect.TypeOf(dst))
	if len(is.list) > before {
		return false
	}
	if err := n.Decode(dst); err != nil {
		_, msg := yamlErrLine(err)
		is.add(n.Line, path, "%s", msg)
		return false
	}
	buf, err := yaml.Marshal(n)
	if err != nil {
		is.add(n.Line, path, "%s", oneLine(err.Error()))
		return false
	}
	dec := yaml.NewDecoder(bytes.NewReader(buf))
	dec.KnownFields(true)
	if err := dec.Decode(dst); err != nil {
		_, msg := yamlErrLine(err)
		is.add(n.Line, path, "%s", msg)
		return false
	}
	return true
}

var (
	unmarshalerType     = reflect.TypeFor[yaml.Unmarshaler]()
	nodeType            = reflect.TypeFor[yaml.Node]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// checkNode compares n with the Go type t the way yaml.v3 would decode it, adding an
// issue for each unknown key and each scalar that does not fit its field.
func checkNode(is *issues, path string, n *yaml.Node, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		if t.Implements(unmarshalerType) {
			return
		}
		t = t.Elem()
	}
	if t == nodeType || reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // null leaves the default in place
	}
	if k := t.Kind(); (k == reflect.Struct || k == reflect.Map) && n.Kind != yaml.MappingNode {
		is.add(n.Line, path, "want a mapping, got %s", kindName(n))
		return
	}
	switch t.Kind() {
	case reflect.Interface:
		return
	case reflect.Struct:
		fields, anyKey := yamlFields(t)
		for j := 0; j+1 < len(n.Content); j += 2 {
			k, v := n.Content[j], n.Content[j+1]
			ft, ok := fields[k.Value]
			if !ok {
				if !anyKey {
					is.add(k.Line, join(path, k.Value), "unknown key (known: %s)", strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
				}
				continue
			}
			checkNode(is, join(path, k.Value), v, ft)
		}
	case reflect.Map:
		for j := 0; j+1 < len(n.Content); j += 2 {
			checkNode(is, join(path, n.Content[j].Value), n.Content[j+1], t.Elem())
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && n.Kind == yaml.ScalarNode {
			return
		}
		if n.Kind != yaml.SequenceNode {
			is.add(n.Line, path, "want a list, got %s", kindName(n))
			return
		}
		for j, c := range n.Content {
			checkNode(is, fmt.Sprintf("%s[%d]", path, j), c, t.Elem())
		}
	default:
		checkScalar(is, path, n, t)
	}
}

// checkScalar decodes a scalar node into a fresh value of t and also rejects what
// yaml.v3 accepts silently: a non-integral number for an integer field (1.5 → 1).
func checkScalar(is *issues, path string, n *yaml.Node, t reflect.Type) {
	if n.Kind != yaml.ScalarNode {
		is.add(n.Line, path, "want %s, got %s", typeName(t), kindName(n))
		return
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		// A typed enum: its own message says what it accepts.
		if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
			is.add(n.Line, path, "%s", oneLine(err.Error()))
		}
		return
	}
	v := reflect.New(t)
	if err := n.Decode(v.Interface()); err != nil {
		is.add(n.Line, path, "want %s, got %q", typeName(t), n.Value)
		return
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var f float64
		if n.Decode(&f) == nil && !math.IsNaN(f) && f != math.Trunc(f) {
			is.add(n.Line, path, "want %s, got %q", typeName(t), n.Value)
		}
	}
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	}
	return t.String()
}

// yamlFields returns the keys yaml.v3 maps onto struct type t (tag name, or the
// lower-cased field name), with their types; anyKey is true when t has an inline map
// that absorbs unknown keys.
func yamlFields(t reflect.Type) (fields map[string]reflect.Type, anyKey bool) {
	fields = map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch ft.Kind() {
			case reflect.Map:
				anyKey = true
			case reflect.Struct:
				sub, subAny := yamlFields(ft)
				maps.Copy(fields, sub)
				anyKey = anyKey || subAny
			}
			continue
		}
		name = cmp.Or(name, strings.ToLower(f.Name))
		fields[name] = f.Type
	}
	return fields, anyKey
}

// paramKeys returns the top-level keys a component parameter value accepts (nil, true
// when it accepts any key).
func paramKeys(v any) (map[string]reflect.Type, bool) {
	if v == nil {
		return map[string]reflect.Type{}, false
	}
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, true
	}
	return yamlFields(t)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Canonical encodes a decoded value (a problem's params, an algorithm's config) as YAML:
// deterministic (sorted map keys), exact for floats (NaN and ±Inf included) and covering
// exactly the fields a spec can set. The runner hashes it into its result-cache keys.
func Canonical(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return yaml.Marshal(v)
}

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
		s += ": " + i.Key
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
