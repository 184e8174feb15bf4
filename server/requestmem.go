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
// message, so a request of n bytes costs about 3n while it is received and
// decoded (six concurrent 250 MiB Prove requests took the RSS from 17 MB
// to 4.46 GiB). requestMemory charges that to a budget the daemon carves
// out of its memory budget, and bounds what gRPC may read by it:
//
//   - The message limit is at most a third of the budget, so one request
//     of any size allowed can be decoded alone.
//   - A SubmitProof or Prove request (the requests that carry proofs)
//     reserves, before gRPC reads its message, what the largest message
//     allowed costs (receive), and gives back what its message does not
//     need once its size is known (fit). gRPC reads nothing of a request
//     message before it is asked to but what HTTP/2 flow control lets the
//     client send ahead (streamWindow), so the wire bytes of requests
//     waiting for their share stay within the budget: they are not read.
//   - Any other request is charged when the codec runs (charge): its
//     messages are small.
//
// A request waits up to requestMemoryWait for its share and is refused
// with ResourceExhausted after. A request smaller than requestChargeMin is
// not charged (status, cancel, most PoSt): its cost is noise, and a full
// budget must not stop an operator's `cuzk status`.
type requestMemory struct {
	budget *memory.Budget
	wait   time.Duration
	// maxMsg is the message limit gRPC enforces (maxRecv).
	maxMsg int
}

// requestMemoryWait is how long a request waits for its share (a
// variable for tests).
var requestMemoryWait = 10 * time.Second

const (
	requestChargeMin = 64 << 10
	// decodeCopies is the cost of a request in multiples of its wire
	// size while it is decoded.
	decodeCopies = 3
	// streamWindow is the HTTP/2 window of a stream (fixed: a window
	// grown by gRPC's bandwidth estimate would let a client send up to
	// 16 MiB of a request before the daemon asks for it). Once a
	// message is read its whole size is granted at once, so it does not
	// slow a large request.
	streamWindow = 64 << 10
	// connWindow is the HTTP/2 window of a connection, shared by its
	// streams.
	connWindow = 16 << 20
)

// receiveMethods are the ProvingEngine methods whose requests reserve
// their share before they are read.
var receiveMethods = map[string]bool{"SubmitProof": true, "Prove": true}

// newRequestMemory charges b, allowing messages of at most maxMsg bytes
// and at most a third of b.
func newRequestMemory(b *memory.Budget, maxMsg int) *requestMemory {
	if b == nil {
		return nil
	}
	third := max(b.Limit()/decodeCopies, requestChargeMin)
	return &requestMemory{budget: b, wait: requestMemoryWait, maxMsg: int(min(uint64(maxMsg), third))}
}

// maxRecv is the message limit for gRPC: maxMsg, or less with a budget.
func (r *requestMemory) maxRecv(maxMsg int) int {
	if r == nil {
		return maxMsg
	}
	return r.maxMsg
}

// receive reserves, before gRPC reads a request's message, what receiving
// and decoding a message of the largest size allowed costs; fit gives back
// what the message does not need. A nil reservation means none is kept.
func (r *requestMemory) receive(ctx context.Context) (*memory.Reservation, error) {
	if r == nil {
		return nil, nil
	}
	cost := min(uint64(r.maxMsg)*decodeCopies, r.budget.Limit())
	wctx, cancel := context.WithTimeout(ctx, r.wait)
	defer cancel()
	res, err := r.budget.Reserve(wctx, cost)
	if err != nil {
		if ctx.Err() != nil {
			return nil, status.FromContextError(ctx.Err()).Err()
		}
		return nil, status.Errorf(codes.ResourceExhausted,
			"no room to receive a request of up to %d bytes (%d bytes) in the daemon's request memory (%d of %d bytes free) within %v; retry later",
			r.maxMsg, cost, r.budget.Available(), r.budget.Limit(), r.wait)
	}
	return res, nil
}

// fit shrinks res, reserved by receive, to the cost of decoding a message
// of n wire bytes.
func (r *requestMemory) fit(res *memory.Reservation, n int) {
	var cost uint64
	if n >= requestChargeMin {
		cost = min(uint64(n)*decodeCopies, r.budget.Limit())
	}
	if held := res.Held(); held > cost {
		res.Release(held - cost)
	}
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
