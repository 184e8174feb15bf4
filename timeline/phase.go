package timeline

import "time"

// Phase is one timed part of a device's Run or Prepare, as the device
// reports it (the CUDA device: "h2d", "ntt", "msm_h", … of a Run; "alloc",
// "kept", "eval", "split" of a Prepare). The engine sums them by name per
// device for the status.
type Phase struct {
	Name string
	D    time.Duration
}
