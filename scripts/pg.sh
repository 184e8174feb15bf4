#!/usr/bin/env bash
# A throwaway PostgreSQL for trying cluster mode by hand (the Go tests use
# cluster/pgtest, which does the same from Go).
#
#   scripts/pg.sh start DIR   initdb in DIR (if new), start on a unix socket in DIR
#                             (no TCP), print the cluster.database_url
#   scripts/pg.sh stop DIR    stop it (DIR stays; rm -rf it when done)
#
# initdb and pg_ctl are looked up on PATH, in /usr/lib/postgresql/*/bin and
# /usr/local/bin; when missing, Debian's postgresql package is installed
# with apt-get if we are root. PostgreSQL will not run as root: as root the
# server runs as the postgres user.
set -euo pipefail
cmd=${1:-}; dir=${2:-}
if [[ -z $cmd || -z $dir ]]; then
	echo "usage: $0 start|stop DIR" >&2; exit 2
fi
find_bin() {
	local d
	for d in "$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/x)")" \
		$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -rn) /usr/local/bin; do
		if [[ -x $d/initdb && -x $d/pg_ctl ]]; then echo "$d"; return 0; fi
	done
	return 1
}
if ! bin=$(find_bin); then
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql >&2
		bin=$(find_bin) || { echo "initdb/pg_ctl still not found" >&2; exit 1; }
	else
		echo "skip: no initdb/pg_ctl, and not root with apt-get to install postgresql" >&2; exit 77
	fi
fi
as=()
user=$(id -un)
if [[ $(id -u) -eq 0 ]]; then
	user=postgres; id postgres >/dev/null 2>&1 || user=nobody
	as=(runuser -u "$user" --)
fi
mkdir -p "$dir"; dir=$(cd "$dir" && pwd)
[[ $(id -u) -eq 0 ]] && chown "$user" "$dir"
case $cmd in
start)
	if [[ ! -f $dir/data/PG_VERSION ]]; then
		"${as[@]}" "$bin/initdb" -D "$dir/data" -U "$user" -A trust -E UTF8 --no-sync >"$dir/initdb.log"
	fi
	"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
		-o "-k $dir -c listen_addresses='' -F -c max_connections=200" start >/dev/null
	echo "host=$dir port=5432 user=$user dbname=postgres sslmode=disable"
	;;
stop)
	"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
	;;
*)
	echo "usage: $0 start|stop DIR" >&2; exit 2
	;;
esac
