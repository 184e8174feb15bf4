// Package tree holds what the partition circuits (circuits/porep,
// circuits/post, circuits/update) share about the Merkle paths they open:
// the arity of every level of a tree R or tree D path, the zero paths of
// blank circuits, and the checks that a path has a configuration's levels,
// arities and indices.
//
// It knows tree shapes and path values, not circuits: what a path opens
// and how it is synthesized stay in each circuit's package. Errors name the
// level and wrap the sentinel the calling circuit passes (its ErrShape).
package tree
