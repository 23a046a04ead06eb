package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the derived files from their sources")

// TestHashes: every file named in PROVENANCE.md's table has the SHA-256 written there, and
// every data file of the folder is named there (nothing unaccounted for ships). The
// hashes of the copied files are those of the files in the Debian packages (sha256sum
// on the installed file); the packages are not needed to run this test.
func TestHashes(t *testing.T) {
	prov, err := os.ReadFile("PROVENANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|.*\\| `([0-9a-f]{64})` \\|$")
	listed := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(prov), -1) {
		name, want := m[1], m[2]
		listed[name] = true
		b, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: SHA-256 %s, PROVENANCE.md says %s", name, got, want)
		}
	}
	if len(listed) < 3 {
		t.Fatalf("PROVENANCE.md lists %d files, want the table of every data file", len(listed))
	}
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		switch n := e.Name(); {
		case strings.HasSuffix(n, ".go"), n == "PROVENANCE.md", n == "NOTICE":
		case !listed[n]:
			t.Errorf("%s ships in data/ but PROVENANCE.md does not list it", n)
		}
	}
	if _, err := os.Stat("NOTICE"); err != nil {
		t.Errorf("NOTICE: %v", err)
	}
}

// TestDiabetesDerived: diabetes.libsvm is the LIBSVM form of scikit-learn's raw diabetes
// files (PROVENANCE.md): line i is the target of line i of diabetes_target.csv.gz
// (formatted with the shortest decimal that reads back exactly) followed by "j:v_j" for the
// ten whitespace-separated fields v_j of line i of diabetes_data_raw.csv.gz, copied as
// text. No value is rescaled: the experiment's feature map is in the spec. Run with
// -update to rewrite it.
func TestDiabetesDerived(t *testing.T) {
	feats := gunzipLines(t, "diabetes_data_raw.csv.gz")
	targets := gunzipLines(t, "diabetes_target.csv.gz")
	if len(feats) != 442 || len(targets) != 442 {
		t.Fatalf("%d feature lines and %d targets, want 442 each (Efron et al. 2004)", len(feats), len(targets))
	}
	var buf bytes.Buffer
	for i, line := range feats {
		y, err := strconv.ParseFloat(strings.TrimSpace(targets[i]), 64)
		if err != nil {
			t.Fatalf("diabetes_target.csv.gz:%d: %v", i+1, err)
		}
		f := strings.Fields(line)
		if len(f) != 10 {
			t.Fatalf("diabetes_data_raw.csv.gz:%d: %d fields, want 10", i+1, len(f))
		}
		buf.WriteString(strconv.FormatFloat(y, 'g', -1, 64))
		for j, v := range f {
			fmt.Fprintf(&buf, " %d:%s", j+1, v)
		}
		buf.WriteByte('\n')
	}
	if *update {
		if err := os.WriteFile("diabetes.libsvm", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("diabetes.libsvm")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("diabetes.libsvm differs from its conversion of the two source files (go test ./data -run Derived -update rewrites it)")
	}
}

func gunzipLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []string
	sc := bufio.NewScanner(z)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			out = append(out, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}
