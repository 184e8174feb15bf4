// Package cuda is the CUDA groth16.Device: it loads libcuzk_cuda.so (built
// from ../../cuda by `make cuda`) at run time with purego, so the Go
// binary builds without cgo and runs where no GPU is (Available reports
// false, New returns ErrUnavailable).
//
// The library is looked for at $CUZK_CUDA_LIB, next to the executable, in
// ./bin and ../../bin, then by the dynamic loader's search path.
//
// Per device, a parameter set's G1 queries (h, l, a, b_g1) and b_g2 are
// uploaded once and stay resident, reference-counted (Retain/Release;
// Prepare uploads on first use and keeps them until Release or Close).
// Under the device's memory limit (MemoryLimit, config device.memory_limit;
// default its free memory less DefaultMemoryMargin) the library plans what
// stays resident (Plan: a prefix of each query, h first) and streams the
// rest from the parameters' own host pages in chunks at every Run; b_g2 is
// resident where the whole set fits with it and nothing streams
// (Plan.BG2Bytes), else it streams too, from the parameters' B_G2
// (Plan.BG2StreamBytes, chunks of half the G1 chunk); a limit below what a
// Run needs fails at the upload with ErrMemoryLimit. Prepare
// works on the CPU: shape checks, the 0/1 split of the L, A and B scalars,
// staging of a, b and the split vectors into pinned buffers the library
// allocates (c is not staged: the device computes c = a∘b, which is c for
// a witness that satisfies the constraints). The split is device/internal/split,
// the CPU device's too. Run launches only device work (the H sequence and
// the four G1 MSMs, and the B_G2 MSM over B_G1's split where the set has
// b_g2) and reports its kernel interval measured with CUDA events; a
// Run after Close returns ErrClosed and frees the job's pinned buffers.
// Finish computes B_G2 on the CPU with the CPU device's code (cpu.SumG2)
// only where Run did not.
//
// Witness runs (witness.go, witnessjob.go): a witness-only assignment
// (groth16.Assignment.WitnessOnly: inputs, aux and the circuit's compiled
// system) goes through Prepare/Run/Finish too. Prepare makes the system's A
// and B resident once per device (UploadMatrices: CSR, the coefficient
// table, each query's gather list) and stages the witness in pinned memory;
// Run is cuzk_run_witness under the lock: a = A·w, b = B·w, c = a∘b, H, the
// split of the L, A, B scalars and the MSMs on the device, B_G2 included
// where the set has b_g2; Finish computes B_G2 on the CPU from the B split
// read back only where Run did not. The device reports EvaluatesWitness (its
// groth16.Profile, profile.go, says all the engine reads of it), so
// the engine reserves no host memory for a, b, c — except under an explicit
// MemoryLimit (the plan counts neither the matrices nor the witness): then
// EvaluatesWitness is false and Prepare takes the classic path, as it also
// does where the parameters' plan streams under the default limit (which
// EvaluatesWitnessOf tells the engine from the partition's shape). On that
// path Prepare evaluates a = A·w and b = B·w on the CPU straight into the
// pinned staging (compiled.System.EvalAB; no c: the device computes c =
// a∘b), so the engine reserves the witness and the staging, not a, b, c
// (EvaluatesIntoWorkspace). RunWitness and RunWitnessCompact run the same
// steps on matrices given directly.
package cuda
