package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/client"
	"github.com/cuzk-project/cuzk/cluster/pgtest"
	"github.com/cuzk-project/cuzk/config"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// buildCuzk builds the cuzk binary into dir.
func buildCuzk(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "cuzk")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// clusterDaemon is a `cuzk daemon` process of a cluster.
type clusterDaemon struct {
	name, addr, status string
	cmd                *exec.Cmd
	log                string
	c                  *client.Client
	done               chan error
}

// startClusterDaemon runs bin as a cluster daemon on url; worker false
// makes a frontend without a device.
func startClusterDaemon(t *testing.T, bin, dir, name, url string, worker bool) *clusterDaemon {
	t.Helper()
	cfg := config.Default()
	cfg.Daemon.Listen = "unix://" + filepath.Join(dir, name+".sock")
	cfg.Daemon.StatusListen = daemonFreePort(t)
	cfg.Daemon.ShutdownGrace = config.Duration(5 * time.Second)
	cfg.Daemon.Dev = true
	cfg.Memory.TotalBudget = config.Budget{Bytes: 1 << 30}
	cfg.SRS.ParamCache = filepath.Join(dir, "params")
	cfg.GPUs.GPUThreads, cfg.Synthesis.Threads, cfg.GPUs.GPUWorkersPerDevice = 1, 1, 1
	cfg.Timeline.Events = 0
	cfg.Cluster.Enabled, cfg.Cluster.DatabaseURL, cfg.Cluster.Worker = true, url, worker
	cfg.Cluster.Capacity = 1
	cfg.Cluster.LocalKinds = []string{} // every kind through the queue
	cfg.Cluster.PollInterval = config.Duration(200 * time.Millisecond)
	// A dead worker's jobs come back after 10 s of silence (and, were
	// that to fail, 5 s and River's rescuer interval, 30 s); a live one
	// proves these in well under a second.
	cfg.Cluster.DeadAfter = config.Duration(10 * time.Second)
	for _, d := range []*config.Duration{&cfg.Cluster.Timeouts.PoRep, &cfg.Cluster.Timeouts.SnapDeals,
		&cfg.Cluster.Timeouts.WindowPoSt, &cfg.Cluster.Timeouts.WinningPoSt} {
		*d = config.Duration(5 * time.Second)
	}
	b, err := config.Encode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".toml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	d := &clusterDaemon{name: name, addr: cfg.Daemon.Listen, status: cfg.Daemon.StatusListen,
		log: filepath.Join(dir, name+".log"), done: make(chan error, 1)}
	logf, err := os.Create(d.log)
	if err != nil {
		t.Fatal(err)
	}
	d.cmd = exec.Command(bin, "daemon", "--config", path)
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	d.cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache-"+name))
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.done <- d.cmd.Wait(); logf.Close() }()
	t.Cleanup(func() {
		d.cmd.Process.Kill()
		<-d.done
		if t.Failed() {
			b, _ := os.ReadFile(d.log)
			t.Logf("--- %s log ---\n%s", name, tail(string(b), 4000))
		}
	})
	d.c = dialDaemon(t, d.addr)
	return d
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// stop sends SIGTERM and waits for a clean exit.
func (d *clusterDaemon) stop(t *testing.T) {
	t.Helper()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.done:
		d.done <- err
		if err != nil {
			t.Errorf("%s: %v", d.name, err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("%s did not stop within 30s", d.name)
	}
}

// workerID is the cluster id of the daemon process (host-pid-random).
func (d *clusterDaemon) workerID(t *testing.T, ctx context.Context, pool *pgxpool.Pool) string {
	t.Helper()
	var id string
	err := pool.QueryRow(ctx, "SELECT id FROM cuzk_worker WHERE id LIKE $1", fmt.Sprintf("%%-%d-%%", d.cmd.Process.Pid)).Scan(&id)
	if err != nil {
		t.Fatalf("%s's worker row: %v", d.name, err)
	}
	return id
}

// Three worker daemons and a frontend without a device, separate
// processes on one PostgreSQL: 50 jobs of mixed kinds and priorities,
// inserted before any worker runs, all proved, higher priorities started
// first; one worker SIGKILLed mid-job, its job proved elsewhere; one
// request id sent to two daemons, one job and one proof; Curio's client
// shape (Prove under a fixed id, retried after a deadline) against the
// frontend.
func TestClusterAcceptance(t *testing.T) {
	pg := pgtest.Start(t)
	url := pg.NewDB(t)
	dir, err := os.MkdirTemp("", "cuzkc") // short: socket paths
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := buildCuzk(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	front := startClusterDaemon(t, bin, dir, "front", url, false)

	sc := synthetic.Default(1 << 9)
	sc.Seed = 16
	desc := func(parts int) []byte { return circuits.SyntheticDescriptor(sc, parts) }
	kinds := []cuzkv1.ProofKind{cuzkv1.ProofKind_POREP_SEAL_COMMIT, cuzkv1.ProofKind_SNAP_DEALS_UPDATE,
		cuzkv1.ProofKind_WINDOW_POST_PARTITION, cuzkv1.ProofKind_WINNING_POST}
	prios := []cuzkv1.Priority{cuzkv1.Priority_LOW, cuzkv1.Priority_NORMAL, cuzkv1.Priority_HIGH, cuzkv1.Priority_CRITICAL}
	const jobs = 50
	reqs := make([]*cuzkv1.SubmitProofRequest, jobs)
	for i := range reqs {
		reqs[i] = &cuzkv1.SubmitProofRequest{
			RequestId: fmt.Sprintf("job-%02d", i), ProofKind: kinds[i%4], Priority: prios[(i/4+i)%4],
			VanillaProof: desc(1 + i%2),
		}
		if _, _, err := front.c.Submit(ctx, reqs[i]); err != nil {
			t.Fatalf("submit %d: %v", i, err)
		}
	}
	// A malformed request is refused at the frontend's submit, as a daemon
	// on its own refuses it, not queued to fail on a worker.
	malformed := &cuzkv1.SubmitProofRequest{RequestId: "malformed", ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT,
		VanillaProof: []byte(`{"synthetic":{"constraints":3}}`)}
	if _, _, err := front.c.Submit(ctx, malformed); status.Code(err) != codes.InvalidArgument {
		t.Errorf("a malformed request at the frontend: %v, want InvalidArgument at submit", err)
	}
	// Curio's shape: Prove under a fixed id with a deadline; nothing
	// proves yet, so the deadline passes.
	curio := &cuzkv1.SubmitProofRequest{RequestId: "curio-1", ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT, VanillaProof: desc(2)}
	dctx, dcancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = front.c.Prove(dctx, curio)
	dcancel()
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("prove before any worker: %v, want DeadlineExceeded", err)
	}

	// c, the worker to be killed, starts alone, so that it holds jobs
	// however fast they prove (started last on an idle machine, it found
	// the queue drained); it is frozen mid-job, a and b start, then c is
	// killed.
	victim := startClusterDaemon(t, bin, dir, "c", url, true)
	victimID := victim.workerID(t, ctx, pool)

	// Freeze c while it proves a job: once it is seen running one, it is
	// stopped (SIGSTOP) and its running jobs read again, counting only those
	// without a result: a job it finished between the query and the kill
	// would otherwise count as killed.
	running := func(unfinished bool) []string {
		q := `SELECT j.args->>'request_id' FROM river_job j
			WHERE j.state = 'running' AND j.attempted_by[array_length(j.attempted_by, 1)] = $1`
		if unfinished {
			q = `SELECT j.args->>'request_id' FROM river_job j
				JOIN cuzk_request r ON r.request_id = j.args->>'request_id'
				WHERE j.state = 'running' AND j.attempted_by[array_length(j.attempted_by, 1)] = $1 AND r.worker = ''`
		}
		rows, err := pool.Query(ctx, q, victimID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ids []string
		for rows.Next() {
			var id string
			rows.Scan(&id)
			ids = append(ids, id)
		}
		return ids
	}
	var killed []string
	for deadline := time.Now().Add(time.Minute); len(killed) == 0; {
		if len(running(false)) > 0 {
			victim.cmd.Process.Signal(syscall.SIGSTOP)
			if killed = running(true); len(killed) > 0 {
				break
			}
			victim.cmd.Process.Signal(syscall.SIGCONT)
		}
		if time.Now().After(deadline) {
			t.Fatal("c never ran a job")
		}
		time.Sleep(5 * time.Millisecond)
	}
	workers := []*clusterDaemon{
		startClusterDaemon(t, bin, dir, "a", url, true),
		startClusterDaemon(t, bin, dir, "b", url, true),
		victim,
	}
	victim.cmd.Process.Signal(syscall.SIGKILL)
	t.Logf("killed c while it proved %v", killed)

	// One request id at two daemons: one job, one proof.
	dup := &cuzkv1.SubmitProofRequest{RequestId: "dup", ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION, VanillaProof: desc(1)}
	var wg sync.WaitGroup
	dupRes := make([]*cuzkv1.AwaitProofResponse, 2)
	dupErr := make([]error, 2)
	for i, d := range workers[:2] {
		wg.Add(1)
		go func() { defer wg.Done(); dupRes[i], dupErr[i] = d.c.Prove(ctx, dup) }()
	}

	start := time.Now()
	for i, r := range reqs {
		d := workers[i%2]
		res, err := d.c.Await(ctx, r.RequestId, 0)
		if err != nil || res.Status != cuzkv1.AwaitProofResponse_COMPLETED {
			t.Fatalf("%s: %v %v", r.RequestId, res, err)
		}
		if want := (1 + i%2) * 192; len(res.Proof) != want {
			t.Errorf("%s: %d proof bytes, want %d", r.RequestId, len(res.Proof), want)
		}
	}
	t.Logf("50 jobs done %v after the kill", time.Since(start).Round(time.Millisecond))
	wg.Wait()
	for i := range dupRes {
		if dupErr[i] != nil || dupRes[i].Status != cuzkv1.AwaitProofResponse_COMPLETED {
			t.Fatalf("dup at daemon %d: %v %v", i, dupRes[i], dupErr[i])
		}
	}
	if !bytes.Equal(dupRes[0].Proof, dupRes[1].Proof) {
		t.Error("one request id, two different proofs")
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE args->>'request_id' = 'dup'").Scan(&n); err != nil || n != 1 {
		t.Errorf("%d jobs for request id dup (%v)", n, err)
	}

	// The killed worker's jobs were proved by another.
	for _, id := range killed {
		var worker string
		if err := pool.QueryRow(ctx, "SELECT worker FROM cuzk_request WHERE request_id = $1", id).Scan(&worker); err != nil {
			t.Fatal(err)
		}
		if worker == "" || worker == victimID {
			t.Errorf("%s proved by %q, the killed worker is %s", id, worker, victimID)
		}
	}

	// Priorities: among jobs proved at their first attempt, every
	// CRITICAL one started before any LOW one, and the mean start rank
	// falls with the priority.
	rows, err := pool.Query(ctx, `SELECT priority, attempted_at FROM river_job
		WHERE attempt = 1 AND args->>'request_id' LIKE 'job-%' ORDER BY attempted_at`)
	if err != nil {
		t.Fatal(err)
	}
	var order []int
	for rows.Next() {
		var p int
		var at time.Time
		rows.Scan(&p, &at)
		order = append(order, p)
	}
	rows.Close()
	rank := map[int][]int{}
	lastCritical, firstLow := -1, len(order)
	for i, p := range order {
		rank[p] = append(rank[p], i)
		if p == 1 {
			lastCritical = i
		}
		if p == 4 && i < firstLow {
			firstLow = i
		}
	}
	if lastCritical > firstLow {
		t.Errorf("a LOW job started (rank %d) before the last CRITICAL (rank %d): %v", firstLow, lastCritical, order)
	}
	mean := func(v []int) float64 {
		s := 0
		for _, x := range v {
			s += x
		}
		return float64(s) / float64(max(len(v), 1))
	}
	for p := 1; p < 4; p++ {
		if mean(rank[p]) > mean(rank[p+1]) {
			t.Errorf("priority %d started later on average than %d: %v", p, p+1, order)
		}
	}

	// Curio retries its Prove after the deadline: the proof comes back
	// from the frontend that has no device.
	res, err := front.c.Prove(ctx, curio)
	if err != nil || res.Status != cuzkv1.AwaitProofResponse_COMPLETED || len(res.Proof) != 2*192 {
		t.Fatalf("curio retry: %v %v", res, err)
	}
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE args->>'request_id' = 'curio-1'").Scan(&n); err != nil || n != 1 {
		t.Errorf("%d jobs for curio-1 (%v)", n, err)
	}

	// The status shows the cluster, on the command line and /status.
	out, code := run(t, "status", "--addr", front.addr)
	if code != 0 || !strings.Contains(out, "cluster: queues cuzk") || !strings.Contains(out, "frontend") ||
		!strings.Contains(out, "completed") {
		t.Errorf("status (exit %d):\n%s", code, out)
	}
	// A worker records a job completed in River after its result reached
	// the waiters (River's completer flushes in batches): the last jobs
	// may show as running for a moment.
	var doc struct {
		Cluster struct {
			Workers []struct{ ID string } `json:"workers"`
			Jobs    map[string]int        `json:"jobs_by_state"`
		} `json:"cluster"`
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + front.status + "/status")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		ok := err == nil && len(doc.Cluster.Workers) >= 3 && doc.Cluster.Jobs["completed"] >= jobs
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("/status cluster: %+v %v", doc.Cluster, err)
			break
		}
	}
	var payloads int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM cuzk_payload").Scan(&payloads); err != nil || payloads != 0 {
		t.Errorf("%d payloads left after every job ended (%v)", payloads, err)
	}
	for _, d := range append(workers[:2], front) {
		d.stop(t)
	}
}
