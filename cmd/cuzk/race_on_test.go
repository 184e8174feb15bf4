//go:build race

package main

// raceEnabled: the race detector slows synthesis about tenfold, so tests
// that synthesize PoRep partitions run fewer of them under it.
const raceEnabled = true
