package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// sourceHash is the SHA-256 of the module's Go sources (non-test .go files, go.mod,
// go.sum), stamped by `make build` with -ldflags "-X expmech/experiments/runner.sourceHash=…";
// "" otherwise. Set only by the linker: a constant of the binary, never assigned.
var sourceHash string

// Provenance identifies the code that produced a result (manifest.json, -version).
type Provenance struct {
	Module    string // the main module's path ("expmech")
	Commit    string // the module's own VCS revision ("" if unknown)
	Dirty     string // "true" | "false" | "" (unknown): uncommitted changes in the module
	GoVersion string
	// CodeVersion keys the result cache: "src:<SourceHash>" for a `make build` binary
	// (stamped) and for `go run`/`go test` (no VCS stamp: compiled from the tree just
	// now, so the tree's hash is the code's), so neither an edited spec, which the binary
	// embeds, nor a commit of documents invalidates the cache; else "git:<commit>" for a
	// `go build` of a clean commit; else "sha256:<hash of the running executable>" (a
	// `go build` of a dirty tree: the binary is then the only faithful name of the code,
	// as it is for a binary of another module that imports expmech).
	CodeVersion string
}

// ReadProvenance reads the build info stamped by `go build` (vcs.revision, vcs.modified).
// When it has none (`go run`, `go test`), it asks git about the module's own source
// folder (moduleRoot), never about the working directory's repository. It is read once
// per process: git twice and a hash of every source file would otherwise be paid by
// every run and plan.
func ReadProvenance() Provenance { return provenanceOnce() }

// provenanceOnce is set at initialisation, never reassigned.
var provenanceOnce = sync.OnceValue(readProvenance)

func readProvenance() Provenance {
	p := Provenance{GoVersion: runtime.Version()}
	stamped := false
	if bi, ok := debug.ReadBuildInfo(); ok {
		p.Module = bi.Main.Path
		for _, s := range bi.Settings {
			stamped = stamped || strings.HasPrefix(s.Key, "vcs.")
			switch s.Key {
			case "vcs.revision":
				p.Commit = s.Value
			case "vcs.modified":
				p.Dirty = s.Value
			}
		}
	}
	root := moduleRoot()
	if p.Commit == "" && root != "" {
		if out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
			p.Commit = strings.TrimSpace(string(out))
			if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
				p.Dirty = strconv.FormatBool(len(strings.TrimSpace(string(st))) > 0)
			}
		}
	}
	p.CodeVersion = codeVersion(stamped, root, p)
	return p
}

func codeVersion(stamped bool, root string, p Provenance) string {
	if p.Module != "" && p.Module != "expmech" {
		// A module of one's own that imports expmech (cli.Main with its own components):
		// neither this tree's sources nor the main module's commit (which does not pin a
		// replaced expmech folder) name all of its code; the binary does.
		return "sha256:" + executableHash()
	}
	if sourceHash != "" {
		return "src:" + sourceHash
	}
	if !stamped && root != "" {
		if h, err := SourceHash(root); err == nil {
			return "src:" + h
		}
	}
	if p.Commit != "" && p.Dirty == "false" {
		return "git:" + p.Commit
	}
	return "sha256:" + executableHash()
}

// moduleRoot is the module's source folder if this binary was built from one that still
// exists (two levels above this file, holding go.mod of module expmech), else "".
func moduleRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "" // -trimpath
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !strings.HasPrefix(string(b), "module expmech\n") {
		return ""
	}
	return root
}

func executableHash() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		return "unknown"
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// SourceHash is the SHA-256 (hex) of the module's code as `make build` stamps it: the
// bytes of every non-test .go file under root (outside the top-level results, figures and
// bin folders) in byte order of their "./"-prefixed slash paths, then go.mod and go.sum.
// Specs and documents are not part of it.
func SourceHash(root string) (string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "results" || rel == "figures" || rel == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			files = append(files, "./"+rel)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	slices.Sort(files)
	files = append(files, "go.mod", "go.sum")
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
