// Package timeline records what each pipeline stage and each device was
// doing (the events of ARCHITECTURE.md §5), and analyses, exports and draws
// those records. It knows nothing of the engine.
package timeline
