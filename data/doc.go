// Package data holds the real data files the experiments read (README "Using your own
// data"; DESIGN.md "Data files"), each with its provenance in PROVENANCE.md and its
// attribution and licence in NOTICE. It has no code: its test checks that every file is
// byte for byte the one its provenance names (SHA-256) and that the derived files are
// reproduced exactly from their sources.
package data
