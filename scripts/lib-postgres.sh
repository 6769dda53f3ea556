# scripts/lib-postgres.sh: sourced by scripts/test and scripts/bench-pg,
# not run. start_postgres starts a throwaway PostgreSQL cluster in a new
# temporary directory (installing Debian's postgresql package if no initdb
# is found), listening on a Unix socket only, with fsync off; it exports
# SPIDER_TEST_PG_DSN and sets a trap that stops the server and removes the
# directory on any exit. initdb refuses to run as root: as root the
# cluster runs as the postgres user.
start_postgres() {
	local bin as=()
	bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
		sudo=""
		[ "$(id -u)" = 0 ] || sudo="sudo"
		$sudo apt-get update -qq >/dev/null
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
		bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
	fi
	PGTEST_BIN=$bin
	PGTEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/spider-pg.XXXXXX")
	if [ "$(id -u)" = 0 ]; then
		chown postgres "$PGTEST_DIR"
		as=(runuser -u postgres --)
	fi
	PGTEST_STOP=("${as[@]}" "$bin/pg_ctl" -D "$PGTEST_DIR/data" -m immediate stop)
	trap 'status=$?; "${PGTEST_STOP[@]}" >/dev/null 2>&1 || true; rm -rf "$PGTEST_DIR"; exit $status' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	local port=$((20000 + RANDOM % 20000))
	"${as[@]}" "$bin/initdb" -D "$PGTEST_DIR/data" -U spider --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
	"${as[@]}" "$bin/pg_ctl" -D "$PGTEST_DIR/data" -l "$PGTEST_DIR/log" -w \
		-o "-c listen_addresses='' -k $PGTEST_DIR -c fsync=off -p $port" start >/dev/null
	export SPIDER_TEST_PG_DSN="host=$PGTEST_DIR port=$port user=spider dbname=postgres"
}
