// Package parallel runs independent pieces of indexed work on several
// goroutines and reports the failure first in order, so that the answer
// does not depend on scheduling: the vanilla proof verifiers' checks
// (filecoin/c1 challenges, filecoin/post circuit sectors, filecoin/update
// challenges) and the windows of r1cs.SynthesizeWindows.
package parallel
