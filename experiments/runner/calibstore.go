package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"

	"expmech/algorithms"
	"expmech/rows"
)

// The calibration cache (README "Result cache"): calibStore answers each distinct key
// once per process (concurrent askers wait for the one computation) and keeps the answers
// on disk under CACHE/calib/<first two hex digits>/<SHA-256 of code version and key>.json,
// written atomically. A file that does not decode or whose key or code version differs is
// a miss. Without a known code version the store lives in memory only.

// calibVersion changes when the file format or the key's derivation changes.
const calibVersion = "expmech-calibration-cache/1"

type calibStore struct {
	dir              string // "" keeps answers in memory only
	version          string // the code's version (Provenance.CodeVersion)
	mu               sync.Mutex
	m                map[string]*calibAnswer
	computed, loaded int // answers computed here and read from disk
	// wait blocks until an answer another goroutine is computing is there (nil: a plain
	// receive); a run sets it to its slots' wait before any Calibration call.
	wait func(<-chan struct{})
}

type calibAnswer struct {
	done chan struct{} // closed when b is there
	b    []byte
}

type calibFile struct {
	Key   string          `json:"key"`
	Code  string          `json:"code"`
	Value json.RawMessage `json:"value"`
}

func newCalibStore(dir, codeVersion string) *calibStore {
	return &calibStore{dir: dir, version: codeVersion, m: map[string]*calibAnswer{}}
}

var _ algorithms.Store = (*calibStore)(nil)

// Calibration returns the answer stored under key, computing it with compute on a miss.
// compute's nil (a failure) is returned and not stored on disk.
func (s *calibStore) Calibration(key string, compute func() []byte) []byte {
	s.mu.Lock()
	a := s.m[key]
	mine := a == nil
	if mine {
		a = &calibAnswer{done: make(chan struct{})}
		s.m[key] = a
	}
	s.mu.Unlock()
	if !mine {
		if s.wait != nil {
			s.wait(a.done)
		} else {
			<-a.done
		}
		return a.b
	}
	defer close(a.done) // also when compute panics: the waiters get nil, as on a failure
	if b := s.load(key); b != nil {
		a.b = b
		s.count(&s.loaded)
		return a.b
	}
	a.b = compute()
	s.count(&s.computed)
	s.save(key, a.b)
	return a.b
}

func (s *calibStore) counts() (computed, loaded int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.computed, s.loaded
}

func (s *calibStore) count(n *int) {
	s.mu.Lock()
	*n++
	s.mu.Unlock()
}

func (s *calibStore) path(key string) string {
	h := sha256.New()
	putString(h, calibVersion)
	putString(h, s.version)
	putString(h, key)
	name := hex.EncodeToString(h.Sum(nil))
	return filepath.Join(s.dir, name[:2], name+".json")
}

func (s *calibStore) load(key string) []byte {
	if s.dir == "" {
		return nil
	}
	b, err := os.ReadFile(s.path(key))
	if err != nil {
		return nil
	}
	var f calibFile
	if json.Unmarshal(b, &f) != nil || f.Key != key || f.Code != s.version || len(f.Value) == 0 {
		return nil // torn or foreign: recompute
	}
	return f.Value
}

// save stores b (best effort: a store that cannot write only costs a recomputation).
func (s *calibStore) save(key string, b []byte) {
	if s.dir == "" || b == nil || !json.Valid(b) {
		return
	}
	p := s.path(key)
	if rows.MkdirAll(filepath.Dir(p)) != nil {
		return
	}
	var buf bytes.Buffer
	if json.NewEncoder(&buf).Encode(calibFile{Key: key, Code: s.version, Value: b}) != nil {
		return
	}
	_ = rows.WriteFile(p, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err })
}

// calibrationStoreFor is the calibration store of a run: under the result cache's folder
// when it is on (Options.cacheDir), in memory otherwise.
func calibrationStoreFor(o Options) *calibStore {
	if dir := o.cacheDir(); dir != "" {
		return newCalibStore(filepath.Join(dir, "calib"), o.Provenance.CodeVersion)
	}
	return newCalibStore("", "")
}
