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
	b := binary.BigEndian.AppendUint64(nil, master)
	for _, s := range []string{stream, key} {
		b = append(binary.BigEndian.AppendUint64(b, uint64(len(s))), s...)
	}
	sum := sha256.Sum256(binary.BigEndian.AppendUint64(b, uint64(trial)))
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
