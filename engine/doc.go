// Package engine owns jobs, the priority scheduler, the synthesis stage,
// the device workers and their lock, the proof assembler and cancellation.
// It knows circuits, parameters and devices only through the circuits
// registry, the srs cache and the groth16.Device interface.
package engine
