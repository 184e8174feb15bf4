// Package parallel runs the independent checks of a vanilla proof
// verifier (filecoin/c1 challenges, filecoin/post circuit sectors,
// filecoin/update challenges) on every core and reports the failure first
// in order, so that a verifier's answer does not depend on scheduling.
package parallel
