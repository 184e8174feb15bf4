package server

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/memory"
)

// Request bytes in flight. gRPC holds a request's wire bytes when the
// codec runs; decoding copies them into one buffer and then into the
// message, so a request of n bytes costs about 3n while it is decoded (six
// concurrent 250 MiB Prove requests took the RSS from 17 MB to 4.46 GiB).
// requestMemory charges that to a budget the daemon carves out of its
// memory budget: a request waits up to requestMemoryWait for its share
// and is refused with ResourceExhausted after. A request smaller than
// requestChargeMin is not charged (status, cancel, most PoSt): its cost is
// noise, and a full budget must not stop an operator's `cuzk status`.
type requestMemory struct {
	budget *memory.Budget
	wait   time.Duration
}

// requestMemoryWait is how long a request waits for its share (a
// variable for tests).
var requestMemoryWait = 10 * time.Second

const (
	requestChargeMin = 64 << 10
	// decodeCopies is the cost of a request in multiples of its wire
	// size while it is decoded.
	decodeCopies = 3
)

func newRequestMemory(b *memory.Budget) *requestMemory {
	if b == nil {
		return nil
	}
	return &requestMemory{budget: b, wait: requestMemoryWait}
}

// charge reserves the decode cost of a request of n wire bytes; release
// gives it back. A cost above the whole budget is capped to it, so one
// request of any size MaxMessageBytes allows can pass alone.
func (r *requestMemory) charge(n int) (release func(), err error) {
	if r == nil || n < requestChargeMin {
		return func() {}, nil
	}
	cost := min(uint64(n)*decodeCopies, r.budget.Limit())
	ctx, cancel := context.WithTimeout(context.Background(), r.wait)
	defer cancel()
	res, err := r.budget.Reserve(ctx, cost)
	if err != nil {
		return nil, status.Errorf(codes.ResourceExhausted,
			"request of %d bytes: no room to decode it (%d bytes) in the daemon's request memory (%d of %d bytes free) within %v; retry later",
			n, cost, r.budget.Available(), r.budget.Limit(), r.wait)
	}
	return res.Close, nil
}
