package server

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/memory"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

func bigPorep(id string, n int) *cuzkv1.SubmitProofRequest {
	r := porep(id)
	r.VanillaProof = bytes.Repeat([]byte{'{'}, n)
	return r
}

// Requests being decoded are charged to the request memory: concurrent
// large requests take turns within it (its peak never passes its limit),
// all are served, and everything is given back after.
func TestRequestMemoryUnderBudget(t *testing.T) {
	const size = 1 << 20
	pool := memory.New(4 * size) // room for one request's decode (3 × size) at a time
	eng := newFakeEngine()
	eng.autoFinish = true
	sock := filepath.Join(shortTempDir(t), "cuzk.sock")
	serveOpts(t, eng, Options{Listen: "unix://" + sock, RequestMemory: pool})
	c := dialUnix(t, sock)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.SubmitProof(ctxT(t), bigPorep("big-"+string(rune('a'+i)), size))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("large request: %v", err)
		}
	}
	if p := pool.Peak(); p == 0 || p > pool.Limit() {
		t.Errorf("request memory peak %d of %d", p, pool.Limit())
	}
	if u := pool.Used(); u != 0 {
		t.Errorf("%d bytes of request memory still held", u)
	}
	// Small requests are not charged: a full pool does not stop GetStatus.
	hold, _ := pool.TryReserve(pool.Limit())
	defer hold.Close()
	if _, err := c.GetStatus(ctxT(t), &cuzkv1.GetStatusRequest{}); err != nil {
		t.Errorf("GetStatus with the request memory full: %v", err)
	}
}

// A request that finds no room within the wait is refused with
// ResourceExhausted and counted.
func TestRequestMemoryExhausted(t *testing.T) {
	old := requestMemoryWait
	requestMemoryWait = 100 * time.Millisecond
	defer func() { requestMemoryWait = old }()
	pool := memory.New(8 << 20)
	hold, _ := pool.TryReserve(pool.Limit())
	defer hold.Close()
	sock := filepath.Join(shortTempDir(t), "cuzk.sock")
	s := serveOpts(t, newFakeEngine(), Options{Listen: "unix://" + sock, RequestMemory: pool})
	c := dialUnix(t, sock)
	_, err := c.SubmitProof(ctxT(t), bigPorep("no-room", 1<<20))
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "bytes") {
		t.Fatalf("request with the request memory full: %v, want ResourceExhausted naming the bytes", err)
	}
	text, _ := s.metrics.Text()
	if !strings.Contains(text, `cuzk_rpc_requests_total{code="ResourceExhausted",method="/cuzk.v1.ProvingEngine/SubmitProof"} 1`) {
		t.Errorf("refusal not counted:\n%s", grepLines(text, "cuzk_rpc_requests_total"))
	}
}

// A request over the message limit is counted in cuzk_rpc_requests_total
// (gRPC refuses it before any interceptor runs).
func TestTooLargeCounted(t *testing.T) {
	sock := filepath.Join(shortTempDir(t), "cuzk.sock")
	s := serveOpts(t, newFakeEngine(), Options{Listen: "unix://" + sock, MaxMessageBytes: 1 << 20})
	c := dialUnix(t, sock)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.SubmitProof(ctx, bigPorep("too-big", 2<<20))
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("oversized request: %v, want ResourceExhausted", err)
	}
	// gRPC writes the refusal before the handler returns to count it,
	// so the client may see it first.
	waitMetric(t, s, `cuzk_rpc_requests_total{code="ResourceExhausted",method="/cuzk.v1.ProvingEngine/SubmitProof"} 1`)
}

// waitMetric waits until the server's metrics text holds line, failing
// the test after 10 s.
func waitMetric(t *testing.T, s *Server, line string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		text, _ := s.metrics.Text()
		if strings.Contains(text, line) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics never showed %s:\n%s", line, grepLines(text, strings.SplitN(line, "{", 2)[0]))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// countingPool is a gRPC buffer pool that counts the bytes it has handed
// out and not got back: the wire bytes of requests gRPC holds.
type countingPool struct {
	mem.BufferPool
	mu         sync.Mutex
	live, peak int
	sizes      map[*[]byte]int
}

func newCountingPool() *countingPool {
	return &countingPool{BufferPool: mem.DefaultBufferPool(), sizes: map[*[]byte]int{}}
}

func (p *countingPool) Get(n int) *[]byte {
	b := p.BufferPool.Get(n)
	p.mu.Lock()
	p.sizes[b] = n
	p.live += n
	p.peak = max(p.peak, p.live)
	p.mu.Unlock()
	return b
}

func (p *countingPool) Put(b *[]byte) {
	p.mu.Lock()
	p.live -= p.sizes[b]
	delete(p.sizes, b)
	p.mu.Unlock()
	p.BufferPool.Put(b)
}

func (p *countingPool) peakBytes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peak
}

// Concurrent large requests do not make gRPC hold more of their wire
// bytes than the request memory: a request reserves its share before its
// message is read, so the ones waiting for theirs are not read yet. All
// are served; the message limit is a third of the request memory.
func TestRequestWireBytesWithinBudget(t *testing.T) {
	const size, n = 3 << 20, 8
	pool := memory.New(12 << 20) // room for one request's receive and decode
	wire := newCountingPool()
	eng := newFakeEngine()
	eng.autoFinish = true
	sock := filepath.Join(shortTempDir(t), "cuzk.sock")
	serveOpts(t, eng, Options{Listen: "unix://" + sock, RequestMemory: pool, recvPool: wire})
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		c := dialUnix(t, sock) // a connection each: one connection's window would serialize them anyway
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.SubmitProof(ctxT(t), bigPorep("wire-"+string(rune('a'+i)), size))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("large request: %v", err)
		}
	}
	t.Logf("peak wire bytes %d, request memory %d", wire.peakBytes(), pool.Limit())
	if p := wire.peakBytes(); p > int(pool.Limit()) {
		t.Errorf("gRPC held %d wire bytes of requests at once, request memory %d", p, pool.Limit())
	}
	if p := pool.Peak(); p > pool.Limit() {
		t.Errorf("request memory peak %d of %d", p, pool.Limit())
	}
	if u := pool.Used(); u != 0 {
		t.Errorf("%d bytes of request memory still held", u)
	}
	// A message over a third of the request memory is refused before it
	// is read.
	_, err := dialUnix(t, sock).SubmitProof(ctxT(t), bigPorep("over-a-third", 5<<20))
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("request over a third of the request memory: %v, want ResourceExhausted", err)
	}
}
