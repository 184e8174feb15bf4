// Package registry holds the lookups the proof registries of filecoin,
// filecoin/post and filecoin/update share: each numbers its proofs 0 … n−1
// (abi.Registered*Proof) and names them by String (the serde name).
//
// It knows ids and names, not what a proof fixes: that stays in each
// registry's Info.
package registry
