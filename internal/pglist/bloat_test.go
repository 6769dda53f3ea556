package pglist

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkStateBloat rewrites rows of the update-heavy tables b.N times,
// in committed transactions, as spiders do, and reports what is left
// behind: dead rows (pg_stat_user_tables.n_dead_tup), the table's size
// with its indexes and TOAST, and the share of HOT updates. "tuned" is
// the schema as migration 2 creates it, "default" the same tables with
// their storage parameters reset. The figures in doc.go come from
//
//	go test ./internal/pglist -run '^$' -bench StateBloat -benchtime 200000x
//
// hosts: one row per host of 5,000, each update a new record (a gate
// transaction: one row rewritten, committed). history: 20,000 URLs with
// records of 200 to 1,500 bytes, one rewritten per update, committed by
// batches of 100 (the historian's), one update in 10 with a new checksum.
func BenchmarkStateBloat(b *testing.B) {
	dsn := testDSN(b)
	for _, table := range []string{"hosts", "history"} {
		for _, tuned := range []bool{true, false} {
			name := table + "/default"
			if tuned {
				name = table + "/tuned"
			}
			b.Run(name, func(b *testing.B) { benchBloat(b, dsn, table, tuned) })
		}
	}
}

const churnSQL = `
CREATE PROCEDURE churn_hosts(n int) LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..n LOOP
		UPDATE hosts SET rec = jsonb_set(rec, '{next}', to_jsonb(i)) WHERE host = 'h' || (i % 5000);
		COMMIT;
	END LOOP;
END $$;
CREATE PROCEDURE churn_history(n int) LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..n LOOP
		UPDATE history SET rec = overlay(rec PLACING int4send(i) FROM 1 FOR 4),
			sum = CASE WHEN i % 10 = 0 THEN int4send(i) ELSE sum END
			WHERE url = 'http://h/' || (i::bigint * 7919 % 20000);
		IF i % 100 = 0 THEN COMMIT; END IF;
	END LOOP;
END $$;
INSERT INTO hosts SELECT 'h' || i, '{"next":0,"end":0,"strikes":0,"leases":[{"pid":1,"id":1,"exp":1}]}'
	FROM generate_series(0, 4999) i;
INSERT INTO history SELECT 'http://h/' || i, convert_to(repeat('x', 200 + i * 37 % 1300), 'UTF8'), int4send(i)
	FROM generate_series(0, 19999) i;`

func benchBloat(b *testing.B, dsn, table string, tuned bool) {
	s := openTest(b, dsn, testSchema(b, dsn))
	ctx := context.Background()
	if !tuned {
		if _, err := s.pool.Exec(ctx, `ALTER TABLE `+table+` RESET (fillfactor,
			autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold)`); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.pool.Exec(ctx, churnSQL); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, fmt.Sprintf(`CALL churn_%s(%d)`, table, b.N)); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	// The statistics reach the shared view when the session reports them:
	// read them once they show every update.
	var dead, upd, hot, size int64
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := s.pool.QueryRow(ctx, `SELECT n_dead_tup, n_tup_upd, n_tup_hot_upd, pg_total_relation_size(relid)
			FROM pg_stat_user_tables WHERE relid = $1::regclass`, s.schema+"."+table).Scan(&dead, &upd, &hot, &size)
		if err != nil {
			b.Fatal(err)
		}
		if upd >= int64(b.N) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.ReportMetric(float64(dead), "dead_rows")
	b.ReportMetric(float64(size)/(1<<20), "MB")
	b.ReportMetric(100*float64(hot)/float64(max(upd, 1)), "hot_%")
}
