package cluster

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// migrationLock is the advisory lock key daemons that start together
// take in turn, so that one migrates and the others find it done.
const migrationLock = 0x63757a6b // "cuzk"

// schemaSQL creates the cuzk tables beside River's; every statement may
// run again.
const schemaSQL = `
CREATE TABLE IF NOT EXISTS cuzk_request (
	request_id      text PRIMARY KEY,
	content_sha256  bytea NOT NULL,
	kind            integer NOT NULL,
	priority        integer NOT NULL,
	river_job_id    bigint,
	created_at      timestamptz NOT NULL DEFAULT now(),
	status          integer NOT NULL DEFAULT 0,
	proof           bytea,
	error           text NOT NULL DEFAULT '',
	worker          text NOT NULL DEFAULT '',
	queue_wait_us   bigint NOT NULL DEFAULT 0,
	srs_load_us     bigint NOT NULL DEFAULT 0,
	synthesis_us    bigint NOT NULL DEFAULT 0,
	gpu_compute_us  bigint NOT NULL DEFAULT 0,
	total_us        bigint NOT NULL DEFAULT 0,
	finished_at     timestamptz,
	expires_at      timestamptz
);
CREATE INDEX IF NOT EXISTS cuzk_request_expires_at ON cuzk_request (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS cuzk_request_open ON cuzk_request (river_job_id) WHERE status = 0;
CREATE TABLE IF NOT EXISTS cuzk_payload (
	request_id  text PRIMARY KEY REFERENCES cuzk_request (request_id) ON DELETE CASCADE,
	sha256      bytea NOT NULL,
	data        bytea NOT NULL
);
CREATE TABLE IF NOT EXISTS cuzk_worker (
	id            text PRIMARY KEY,
	host          text NOT NULL,
	queue         text NOT NULL,
	capacity      integer NOT NULL,
	running       integer NOT NULL,
	devices       integer NOT NULL,
	started_at    timestamptz NOT NULL,
	heartbeat_at  timestamptz NOT NULL
);
`

// Migrate brings River's tables (rivermigrate, all versions up) and the
// cuzk tables to this version. Daemons starting together take turns.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("cluster: migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrationLock)); err != nil {
		return fmt.Errorf("cluster: migrate: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(migrationLock)) //nolint:errcheck
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("cluster: rivermigrate: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("cluster: rivermigrate up: %w", err)
	}
	// Only where something is missing: CREATE INDEX IF NOT EXISTS locks
	// its table before it finds the index there, so it would wait for any
	// daemon's open transaction on cuzk_request (one stopped mid-job
	// would hold a starting daemon up for good). The lock timeout bounds
	// a real migration's wait the same way.
	var present bool
	if err := conn.QueryRow(ctx, schemaPresentSQL).Scan(&present); err != nil {
		return fmt.Errorf("cluster: cuzk tables: %w", err)
	}
	if present {
		return nil
	}
	if _, err := conn.Exec(ctx, "SET lock_timeout = '30s'"); err != nil {
		return fmt.Errorf("cluster: cuzk tables: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "RESET lock_timeout") //nolint:errcheck
	if _, err := conn.Exec(ctx, schemaSQL); err != nil {
		return fmt.Errorf("cluster: cuzk tables (another daemon's transaction may hold them): %w", err)
	}
	return nil
}

// schemaPresentSQL reports whether every relation schemaSQL makes exists.
const schemaPresentSQL = `SELECT to_regclass('cuzk_request') IS NOT NULL AND to_regclass('cuzk_request_expires_at') IS NOT NULL
	AND to_regclass('cuzk_request_open') IS NOT NULL AND to_regclass('cuzk_payload') IS NOT NULL
	AND to_regclass('cuzk_worker') IS NOT NULL`
