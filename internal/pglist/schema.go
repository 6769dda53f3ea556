package pglist

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// migrations are the schema's versions, in order: migrations[i] takes the
// schema from version i to version i+1. A migration is never edited once
// released; a change is a new one.
var migrations = []string{
	// 1: the list, its spiders, the levels in use.
	`CREATE TABLE lines (
		id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		url      text NOT NULL UNIQUE,
		file     text NOT NULL DEFAULT '',
		spider   text NOT NULL DEFAULT '',
		epoch    bigint NOT NULL DEFAULT 0,
		level    integer NOT NULL CHECK (level >= 0),
		state    smallint NOT NULL CHECK (state BETWEEN 1 AND 6),
		modified timestamptz,
		due      timestamptz
	);
	CREATE INDEX lines_claimed ON lines (spider) WHERE spider <> '';
	CREATE INDEX lines_since ON lines ((coalesce(modified, due)), id) WHERE spider = '';
	CREATE INDEX lines_new ON lines (level, (coalesce(modified, due)) NULLS FIRST, id)
		WHERE spider = '' AND (modified IS NULL OR due <= modified);
	CREATE INDEX lines_plain ON lines (level, modified, id)
		WHERE spider = '' AND due IS NULL AND modified IS NOT NULL;
	CREATE INDEX lines_model_due ON lines (level, due, id) WHERE spider = '' AND due > modified;
	CREATE INDEX lines_model_age ON lines (level, modified, id) WHERE spider = '' AND due > modified;
	CREATE INDEX lines_unvisited ON lines (id) WHERE spider = '' AND modified IS NULL;
	CREATE TABLE levels (level integer PRIMARY KEY);
	CREATE TABLE counts (one boolean PRIMARY KEY DEFAULT true CHECK (one), lines bigint NOT NULL);
	INSERT INTO counts (lines) VALUES (0);
	CREATE SEQUENCE epochs;
	CREATE TABLE spiders (
		spider     text PRIMARY KEY,
		num        integer GENERATED ALWAYS AS IDENTITY UNIQUE,
		epoch      bigint NOT NULL DEFAULT 0,
		pid        integer NOT NULL DEFAULT 0,
		host       text NOT NULL DEFAULT '',
		started    timestamptz,
		heartbeat  timestamptz,
		lease_s    double precision NOT NULL DEFAULT 0,
		last_cycle jsonb,
		extra      jsonb
	);`,
	// 2: the fetch history and the hosts' pace (history.go, gate.go).
	// Both are rewritten far more often than inserted. fillfactor leaves
	// room on each page for a row's next version, so an update is HOT (no
	// new index entry, pruned with no vacuum); no index covers a column
	// that a usual update changes (history_sum changes with a page's
	// body only). history's autovacuum starts at 5% of its rows dead
	// rather than 20%, so a list of millions does not wait for hundreds
	// of thousands. The figures are in doc.go.
	`CREATE TABLE history (
		url text COLLATE "C" PRIMARY KEY,
		rec bytea NOT NULL,
		sum bytea
	) WITH (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.05, autovacuum_vacuum_threshold = 1000);
	CREATE INDEX history_sum ON history (sum) WHERE sum IS NOT NULL;
	CREATE TABLE hosts (
		host text COLLATE "C" PRIMARY KEY,
		rec  jsonb NOT NULL
	) WITH (fillfactor = 90);
	CREATE SEQUENCE gate_holders;`,
	// 3: the lines never visited in order of waiting, for the claim's
	// first tier (claimsql.go: the first visits that waited past the
	// stale bound).
	`CREATE INDEX lines_waiting ON lines (due, id) WHERE spider = '' AND modified IS NULL;`,
}

// migrate brings the schema up to the latest version in one transaction,
// under an advisory lock on the schema's name, so that spiders starting at
// once migrate it once. A schema newer than this program knows is refused:
// an older spider must not write a list whose rules it does not know. A
// list that does not exist yet is created if create is set, else refused
// (ErrNoList); the schema itself only if it does not exist, so that a user
// who owns a schema made for the list needs no CREATE on the database.
func migrate(ctx context.Context, conn *pgx.Conn, schema string, create bool) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('spider-list-migrate'), hashtext($1))`, schema); err != nil {
		return err
	}
	ident := pgx.Identifier{schema}.Sanitize()
	var hasSchema, hasList bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1), to_regclass($2) IS NOT NULL`,
		schema, ident+`.schema_version`).Scan(&hasSchema, &hasList); err != nil {
		return err
	}
	switch {
	case !hasList && !create:
		return fmt.Errorf("%w: schema %s", ErrNoList, schema)
	case !hasSchema:
		if _, err := tx.Exec(ctx, `CREATE SCHEMA `+ident); err != nil {
			return err
		}
	}
	if !hasList {
		if _, err := tx.Exec(ctx, `CREATE TABLE `+ident+`.schema_version (version integer NOT NULL)`); err != nil {
			return err
		}
	}
	var v int
	err = tx.QueryRow(ctx, `SELECT version FROM `+ident+`.schema_version`).Scan(&v)
	switch {
	case err == pgx.ErrNoRows:
		if _, err := tx.Exec(ctx, `INSERT INTO `+ident+`.schema_version VALUES (0)`); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("%w: schema %s is at version %d, this spider knows %d", ErrNewerSchema, schema, v, len(migrations))
	}
	if v == len(migrations) {
		return tx.Commit(ctx)
	}
	if _, err := tx.Exec(ctx, `SET LOCAL search_path TO `+ident); err != nil {
		return err
	}
	for i := v; i < len(migrations); i++ {
		if _, err := tx.Exec(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE schema_version SET version = $1`, len(migrations)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
