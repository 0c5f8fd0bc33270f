#!/usr/bin/env bash
# Point-in-time restore with pgBackRest, end to end, as docs/operations/backups.md describes it:
#
#   1. a PostgreSQL cluster with WAL archiving to a pgBackRest repository, served by `sous serve`;
#   2. writes through the API (sites A…), a full backup, more writes (sites B…);
#   3. the time is noted; more writes (sites C…) are acknowledged after it;
#   4. a table is dropped by hand (the disaster: sites, and everything hanging from it);
#   5. the cluster is restored into a new data directory to the noted time, promoted, and served
#      by `sous serve --no-migrate` (the migrations came back with the data; nothing is re-run);
#   6. every write acknowledged before the time is there, none of those after.
#
# Installs pgBackRest from Debian's package when missing (needs root or passwordless sudo). Run
# as root, the clusters run as the postgres user (initdb refuses root).
set -euo pipefail
cd "$(dirname "$0")/../.."

log() { printf '== pitr: %s\n' "$*" >&2; }
fail() { printf 'pitr: FAILED: %s\n' "$*" >&2; exit 1; }

sudo_=""
[ "$(id -u)" -eq 0 ] || sudo_=sudo
if ! command -v pgbackrest >/dev/null; then
	$sudo_ apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends pgbackrest >/dev/null
fi
for c in curl jq; do command -v "$c" >/dev/null || fail "$c is needed"; done
major=$(ls /usr/lib/postgresql | sort -n | tail -1)
pgbin=/usr/lib/postgresql/$major/bin

# Everything lives in one directory the postgres user owns; removed at the end.
work=$(mktemp -d /tmp/sous-pitr.XXXXXX)
chmod 755 "$work"
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
	chown postgres:postgres "$work"
	as_pg=(runuser -u postgres --)
elif [ "$(id -un)" != postgres ]; then
	as_pg=()
fi
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for d in "$work/pg" "$work/restored"; do
		[ -f "$d/postmaster.pid" ] && "${as_pg[@]}" "$pgbin/pg_ctl" -D "$d" -m immediate stop >/dev/null 2>&1 || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

# free_port: a port nothing listens on, distinct from those already taken by this script.
taken=" "
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 20000))
		case $taken in *" $p "*) continue ;; esac
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
}
port=$(free_port)
taken="$taken$port "
port2=$(free_port)
taken="$taken$port2 "
api_port=$(free_port)
taken="$taken$api_port "
api2_port=$(free_port)

log "building sous"
go build -o "$work/sous" ./cmd/sous

log "a cluster with WAL archiving to a pgBackRest repository (PostgreSQL $major)"
conf=$work/pgbackrest.conf
"${as_pg[@]}" mkdir -p "$work/repo" "$work/log" "$work/lock" "$work/sock"
"${as_pg[@]}" tee "$conf" >/dev/null <<EOF
[global]
repo1-path=$work/repo
repo1-retention-full=2
log-path=$work/log
lock-path=$work/lock
log-level-console=warn
start-fast=y

[sous]
pg1-path=$work/pg
pg1-port=$port
pg1-socket-path=$work/sock
EOF
"${as_pg[@]}" "$pgbin/initdb" -D "$work/pg" -U postgres -A trust >/dev/null
"${as_pg[@]}" tee -a "$work/pg/postgresql.conf" >/dev/null <<EOF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work/sock'
wal_level = replica
archive_mode = on
archive_command = 'pgbackrest --config=$conf --stanza=sous archive-push %p'
max_wal_senders = 3
EOF
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w start >/dev/null
psql_() { "${as_pg[@]}" psql -X -q -h "$work/sock" -p "$1" -U postgres -d sous -Atc "$2"; }
"${as_pg[@]}" psql -X -q -h "$work/sock" -p "$port" -U postgres -d postgres -c 'CREATE DATABASE sous' >/dev/null
"${as_pg[@]}" pgbackrest --config="$conf" --stanza=sous stanza-create
"${as_pg[@]}" pgbackrest --config="$conf" --stanza=sous check

# start_sous PORT DBPORT [ARGS]: serves in the background and waits until it is ready.
start_sous() {
	local p=$1 db=$2
	shift 2
	DATABASE_URL="postgres://postgres@127.0.0.1:$db/sous?sslmode=disable" SOUS_ADDR="127.0.0.1:$p" \
		SOUS_DATA_DIR="$work/data-$p" SOUS_ACCESS_LOG=false SOUS_SHUTDOWN_GRACE=0s \
		"$work/sous" serve "$@" >"$work/sous-$p.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 1 300); do
		if curl -fsS "http://127.0.0.1:$p/readyz" >/dev/null 2>&1; then return 0; fi
		sleep 0.1
	done
	cat "$work/sous-$p.log" >&2
	fail "sous on :$p never became ready"
}

api=http://127.0.0.1:$api_port/v1
log "sous serve on the cluster"
start_sous "$api_port" "$port"
email="pitr-$(date +%s%N)@sous-test.example"
password=walk-in-cooler-pantry-9
reg=$(curl -fsS "$api/auth/register" -H 'content-type: application/json' \
	-d "{\"name\":\"Ops\",\"email\":\"$email\",\"password\":\"$password\",\"orgName\":\"Harborview Kitchens\"}")
token=$(jq -r .accessToken <<<"$reg")
org=$(jq -r '.user.memberships[0].orgId' <<<"$reg")
site() { # creates a site through the API; succeeds only on 201 (the write acknowledged)
	curl -fsS -o /dev/null -w '%{http_code}' "$api/orgs/$org/sites" -H "authorization: Bearer $token" \
		-H 'content-type: application/json' -d "{\"name\":\"$1\",\"timezone\":\"America/Chicago\"}" | grep -qx 201 ||
		fail "site $1 not acknowledged"
}
for n in A1 A2 A3; do site "$n"; done

log "full backup"
"${as_pg[@]}" pgbackrest --config="$conf" --stanza=sous --type=full backup
# The restore names this backup: pgBackRest records a backup's stop time to the second, so one
# that ended within the second before the target would not be picked by time alone.
label=$("${as_pg[@]}" pgbackrest --config="$conf" --stanza=sous --output=json info | jq -r '.[0].backup[-1].label')
for n in B1 B2 B3; do site "$n"; done

# The noted time: the database's clock, after every B was acknowledged, before any C.
target=$(psql_ "$port" "SET TimeZone = 'UTC'; SELECT to_char(clock_timestamp(), 'YYYY-MM-DD HH24:MI:SS.US') || '+00'")
log "noted time $target"
for n in C1 C2; do site "$n"; done

log "the disaster: DROP TABLE sites CASCADE"
psql_ "$port" 'SET client_min_messages = warning; DROP TABLE sites CASCADE'
# The drop's WAL must reach the repository for recovery to find a commit past the target:
# check switches to a new WAL segment and waits until the last one is archived.
"${as_pg[@]}" pgbackrest --config="$conf" --stanza=sous check
kill "${pids[0]}"
wait "${pids[0]}" 2>/dev/null || true
pids=()
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg" -m fast -w stop >/dev/null

log "restore into a new cluster to the noted time"
"${as_pg[@]}" mkdir -m 700 "$work/restored"
"${as_pg[@]}" pgbackrest --config="$conf" --stanza=sous --pg1-path="$work/restored" \
	--set="$label" --type=time --target="$target" --target-action=promote restore
# The restored cluster listens elsewhere (the old one's files are left for forensics) and
# archives into the same repository, on its new timeline.
"${as_pg[@]}" tee -a "$work/restored/postgresql.auto.conf" >/dev/null <<EOF
port = $port2
EOF
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/restored" -l "$work/restored.log" -w -t 120 start >/dev/null
for _ in $(seq 1 600); do
	[ "$(psql_ "$port2" 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ] && break
	sleep 0.1
done
[ "$(psql_ "$port2" 'SELECT pg_is_in_recovery()')" = f ] || { tail -20 "$work/restored.log" >&2; fail "the restored cluster never left recovery"; }
versions=$(psql_ "$port2" 'SELECT count(*) FROM goose_db_version')

log "sous serve --no-migrate on the restored cluster"
api=http://127.0.0.1:$api2_port/v1
start_sous "$api2_port" "$port2" --no-migrate
token=$(curl -fsS "$api/auth/login" -H 'content-type: application/json' \
	-d "{\"email\":\"$email\",\"password\":\"$password\"}" | jq -r .accessToken)
names=$(curl -fsS "$api/orgs/$org/sites?limit=500" -H "authorization: Bearer $token" | jq -r '.[].name' | sort | tr '\n' ' ')
log "sites after the restore: $names"
for n in A1 A2 A3 B1 B2 B3; do
	grep -qw "$n" <<<"$names" || fail "site $n, acknowledged before the noted time, is missing"
done
for n in C1 C2; do
	grep -qw "$n" <<<"$names" && fail "site $n, acknowledged after the noted time, is present"
done
[ "$(psql_ "$port2" 'SELECT count(*) FROM goose_db_version')" = "$versions" ] || fail "serving the restore ran migrations"
# And it takes writes again.
site D1
log "OK: every write acknowledged before $target is back, none after"
