package experiments

import (
	"crypto/sha256"
	"encoding/binary"
)

// Stream names of DESIGN.md "Seeds and determinism".
const (
	ProblemStream   = "problem"
	MechanismStream = "mechanism"
)

// Seed derives the two PCG words of the stream (master, stream, key, trial): the first 16
// bytes of SHA-256 over the master seed (8 bytes, big endian), the stream name and key
// (each length-prefixed, so that no two tuples share an encoding) and the trial (8 bytes).
func Seed(master uint64, stream, key string, trial int) (hi, lo uint64) {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], master)
	h.Write(b[:])
	for _, s := range []string{stream, key} {
		binary.BigEndian.PutUint64(b[:], uint64(len(s)))
		h.Write(b[:])
		h.Write([]byte(s))
	}
	binary.BigEndian.PutUint64(b[:], uint64(trial))
	h.Write(b[:])
	sum := h.Sum(nil)
	return binary.BigEndian.Uint64(sum[0:8]), binary.BigEndian.Uint64(sum[8:16])
}

// ProblemSeed is the problem stream of a trial: it depends on the problem part of the
// cell only, never on the algorithm or the privacy budget (common random numbers).
func (s *Spec) ProblemSeed(c Cell, trial int) (hi, lo uint64) {
	return Seed(s.Seed, ProblemStream, c.ProblemKey, trial)
}

// MechanismSeed is the mechanism stream of a trial: the same for every algorithm of the
// trial (common random numbers for paired comparisons).
func (s *Spec) MechanismSeed(c Cell, trial int) (hi, lo uint64) {
	return Seed(s.Seed, MechanismStream, c.Key, trial)
}
