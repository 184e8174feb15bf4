// Package circuittest holds the test helpers the partition circuits'
// tests share: random canonical domains for self-built instances, the
// count check every circuit's Config.Shape and NumInputs answer to, and
// the checks that a synthesized partition is satisfied with the public
// inputs its verifier derives (or, tampered, is not).
//
// Only tests import it.
package circuittest
