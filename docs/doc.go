// Package docs holds the operator documentation: the README at the
// repository root and the pages beside this file. It has no code. Its test
// (TestShellBlocks) runs every shell block of those pages in order, as an
// operator would paste them into a fresh clone, so that a command the docs
// show is a command that works.
//
// A block that needs more than a fresh clone on a development machine is
// marked on the line before its fence with an HTML comment naming what it
// needs, which the rendered page does not show:
//
//	<!-- doc-test: slow -->
//	```sh
//	go run ./cmd/cuzk setup --proof-type StackedDrg2KiBV1_1 --params-dir ./params
//	```
//
// The tags (several may be given, separated by spaces):
//
//	daemon   a running daemon: the block's `cuzk daemon` lines start one in
//	         the background (each stops the one before; the last stops at
//	         the block's end and must exit 0); a block without such a line
//	         gets a --dev daemon on the default socket
//	slow     minutes of work: runs only without -short
//	gpu      a CUDA device and libcuzk_cuda.so
//	grpcurl  grpcurl on PATH
//	tls      certificates, a token secret under /etc or a second host: never run
//	suite    the test suite itself (./scripts/test): never run, it runs this test
package docs
