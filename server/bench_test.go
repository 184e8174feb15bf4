package server

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// benchServer serves a fake engine that completes every job at once on a
// unix socket, so the benchmarks measure the API path only: marshalling,
// the socket, validation, interceptors and metrics.
func benchServer(b *testing.B) cuzkv1.ProvingEngineClient {
	eng := newFakeEngine()
	eng.setAutoFinish(true)
	dir := b.TempDir()
	sock := filepath.Join(dir, "b.sock")
	if len(sock) > 100 {
		b.Skip("temp dir too long for a unix socket")
	}
	s := New(eng, Options{Listen: "unix://" + sock, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	b.Cleanup(func() { cancel(); <-done })
	for s.Addr() == nil {
		time.Sleep(time.Millisecond)
	}
	conn := dialConn(b, sock)
	return cuzkv1.NewProvingEngineClient(conn)
}

// BenchmarkProveRPC: one Prove round trip with a 1 KiB request.
func BenchmarkProveRPC(b *testing.B) {
	cli := benchServer(b)
	ctx := context.Background()
	req := porep("")
	req.VanillaProof = make([]byte, 1<<10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cli.Prove(ctx, &cuzkv1.ProveRequest{Submit: req}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/rpc")
}

// BenchmarkProveRPC64MiB: a Prove carrying a 64 MiB vanilla proof (a
// 32 GiB PoRep C1 output is ~50 MB).
func BenchmarkProveRPC64MiB(b *testing.B) {
	cli := benchServer(b)
	ctx := context.Background()
	req := porep("")
	req.VanillaProof = make([]byte, 64<<20)
	b.SetBytes(int64(len(req.VanillaProof)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cli.Prove(ctx, &cuzkv1.ProveRequest{Submit: req}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/rpc")
}
