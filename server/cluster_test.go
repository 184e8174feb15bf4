package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/cluster"
	"github.com/cuzk-project/cuzk/cluster/pgtest"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// TestClusterDatabaseDown serves a cluster frontend whose database stops:
// the RPCs answer Unavailable (retriable), not Internal, once they have
// waited it out; /healthz answers 503 and /status and GetStatus's cluster
// header say "unreachable" while it lasts, ok once it is back.
func TestClusterDatabaseDown(t *testing.T) {
	pg := pgtest.Start(t)
	url := pg.NewDB(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := cluster.New(ctx, cluster.Options{DatabaseURL: url, Migrate: true, RideOut: time.Second, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(time.Second) })

	dir, err := os.MkdirTemp("", "cuzk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "cuzk.sock")
	s := New(cl, Options{Listen: "unix://" + sock, StatusListen: "127.0.0.1:0", Log: quiet})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Serve(sctx) }()
	t.Cleanup(func() { stop(); <-done })
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cli := cuzkv1.NewProvingEngineClient(conn)
	base := "http://" + s.StatusAddr().String()

	req := func(id string) *cuzkv1.SubmitProofRequest {
		return &cuzkv1.SubmitProofRequest{RequestId: id, ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT,
			SectorSize: 32 << 30, VanillaProof: []byte(`{"SectorNum":1}`)}
	}
	if _, err := cli.SubmitProof(ctx, req("queued")); err != nil {
		t.Fatal(err)
	}
	check := func(when string, wantCode int, wantBody, wantDB string) {
		t.Helper()
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != wantCode || !strings.Contains(string(body), wantBody) {
			t.Errorf("%s: /healthz %d %q, want %d %q", when, resp.StatusCode, body, wantCode, wantBody)
		}
		resp, err = http.Get(base + "/status")
		if err != nil {
			t.Fatal(err)
		}
		var doc statusJSON
		err = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if err != nil || doc.Cluster == nil || doc.Cluster.Database != wantDB {
			t.Errorf("%s: /status cluster %+v (%v), want database %q", when, doc.Cluster, err, wantDB)
		}
		var md metadata.MD
		if _, err := cli.GetStatus(ctx, &cuzkv1.GetStatusRequest{}, grpc.Header(&md)); err != nil {
			t.Errorf("%s: GetStatus: %v", when, err)
		}
		var hdr ClusterJSON
		if v := md.Get(ClusterHeader); len(v) == 0 || json.Unmarshal([]byte(v[0]), &hdr) != nil || hdr.Database != wantDB {
			t.Errorf("%s: GetStatus cluster header %v, want database %q", when, v, wantDB)
		}
	}
	check("database up", http.StatusOK, "ok", "ok")

	pg.Stop(t)
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"SubmitProof", func() error { _, err := cli.SubmitProof(ctx, req("new")); return err }},
		{"AwaitProof", func() error {
			_, err := cli.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "queued"})
			return err
		}},
		{"CancelProof", func() error { _, err := cli.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: "queued"}); return err }},
	} {
		if err := tc.call(); status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "database unreachable") {
			t.Errorf("%s with the database stopped: %v, want Unavailable naming the database", tc.name, err)
		}
	}
	check("database stopped", http.StatusServiceUnavailable, "cluster database unreachable", "unreachable")

	pg.Restart(t)
	if _, err := cli.SubmitProof(ctx, req("after")); err != nil {
		t.Errorf("SubmitProof after the database came back: %v", err)
	}
	check("database back", http.StatusOK, "ok", "ok")
}
