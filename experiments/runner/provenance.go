package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
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
	// CodeVersion keys the result cache: "src:<hash of the Go sources>" for a `make
	// build` binary (so neither a commit of documents nor an edited spec, which the
	// binary embeds, invalidates the cache), else "git:<commit>" for a build of a clean
	// commit, else "sha256:<hash of the running executable>" (a dirty tree or an unknown
	// commit: the binary itself is then the only faithful name of the code).
	CodeVersion string
}

// ReadProvenance reads the build info stamped by `go build` (vcs.revision, vcs.modified).
// When it has none (`go run`, `go test`), it asks git about the module's own source
// folder — found from this file's compile-time path and checked by its go.mod — never
// about the working directory's repository.
func ReadProvenance() Provenance {
	p := Provenance{GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		p.Module = bi.Main.Path
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				p.Commit = s.Value
			case "vcs.modified":
				p.Dirty = s.Value
			}
		}
	}
	if p.Commit == "" {
		if root := moduleRoot(); root != "" {
			if out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
				p.Commit = strings.TrimSpace(string(out))
				if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
					p.Dirty = map[bool]string{true: "true", false: "false"}[len(strings.TrimSpace(string(st))) > 0]
				}
			}
		}
	}
	switch {
	case sourceHash != "":
		p.CodeVersion = "src:" + sourceHash
	case p.Commit != "" && p.Dirty == "false":
		p.CodeVersion = "git:" + p.Commit
	default:
		p.CodeVersion = "sha256:" + executableHash()
	}
	return p
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
	f, err := os.Open(exe)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown"
	}
	return hex.EncodeToString(h.Sum(nil))
}
