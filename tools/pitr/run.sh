#!/usr/bin/env bash
# Point-in-time restore with pgBackRest, end to end, as docs/operations/backups.md describes it,
# on Debian's layout of PostgreSQL (clusters made by pg_createcluster: data in
# /var/lib/postgresql/<major>/<name>, configuration in /etc/postgresql/<major>/<name>, run with
# pg_ctlcluster):
#
#   1. a cluster made with pg_createcluster, configured with the page's conf.d block and the
#      page's pgbackrest.conf (read from the page; only the repository path, the data path and
#      the port are changed), WAL archiving to the repository, served by `sous serve`;
#   2. writes through the API (sites A…), a full backup, more writes (sites B…);
#   3. the time is noted; more writes (sites C…) are acknowledged after it;
#   4. a table is dropped by hand (the disaster: sites, and everything hanging from it);
#   5. a new cluster is made with pg_createcluster, emptied, restored into to the noted time
#      with the page's commands, started with pg_ctlcluster, and served by
#      `sous serve --no-migrate` (the migrations came back with the data; nothing is re-run);
#   6. every write acknowledged before the time is there, none of those after;
#   7. both clusters are dropped.
#
# Needs root (pg_createcluster writes /etc/postgresql) and Debian's postgresql-common; installs
# pgBackRest from Debian's package when missing. pgBackRest reads the test's own configuration
# file through PGBACKREST_CONFIG (set in the clusters' `environment` files too, so archive_command
# and restore_command see it); /etc/pgbackrest.conf is left alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
doc=docs/operations/backups.md

log() { printf '== pitr: %s\n' "$*" >&2; }
fail() { printf 'pitr: FAILED: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "run as root (pg_createcluster and pg_ctlcluster manage /etc/postgresql)"
command -v pg_createcluster >/dev/null || fail "Debian's postgresql-common is needed (pg_createcluster)"
if ! command -v pgbackrest >/dev/null; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends pgbackrest >/dev/null
fi
for c in curl jq; do command -v "$c" >/dev/null || fail "$c is needed"; done
major=$(ls /usr/lib/postgresql | sort -n | tail -1)
as_pg=(runuser -u postgres --)

# doc_block MARKER: the fenced block right after the marker comment in the page.
doc_block() {
	awk -v marker="$1" '
		found == 0 && index($0, marker) == 1 { found = 1; next }
		found == 1 { if ($0 !~ /^```/) exit 2; found = 2; next }
		found == 2 && /^```/ { exit 0 }
		found == 2 { print }
		END { if (found != 2) exit 2 }' "$doc" || fail "$doc: no block after $1"
}
# set_key KEY VALUE: replaces the value of KEY=… in stdin (exactly one line must match).
set_key() {
	local out
	out=$(awk -v k="$1" -v v="$2" 'BEGIN { n = 0 } index($0, k "=") == 1 { print k "=" v; n++; next } { print } END { if (n != 1) exit 3 }') ||
		fail "$doc: pgbackrest.conf sets $1 other than once"
	printf '%s\n' "$out"
}

# Everything the test writes lives in one directory the postgres user owns; removed at the end
# with both clusters.
work=$(mktemp -d /tmp/sous-pitr.XXXXXX)
chmod 755 "$work"
chown postgres:postgres "$work"
suffix=$(basename "$work" | tr -dc 'a-zA-Z0-9' | tr 'A-Z' 'a-z')
cluster=sous_pitr_$suffix
restored=${cluster}_restored
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for c in "$cluster" "$restored"; do
		if pg_lsclusters -h "$major" "$c" >/dev/null 2>&1; then
			pg_ctlcluster "$major" "$c" stop -m immediate >/dev/null 2>&1 || true
			pg_dropcluster "$major" "$c" >/dev/null 2>&1 || true
		fi
		# pg_dropcluster leaves files it did not make: the conf.d file written here.
		rm -f "/etc/postgresql/$major/$c/conf.d/pgbackrest.conf"
		rmdir "/etc/postgresql/$major/$c/conf.d" "/etc/postgresql/$major/$c" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

# free_port: a port nothing listens on, distinct from those already taken by this script, and
# outside the kernel's ephemeral range: a port chosen inside it can be taken by any outgoing
# connection (psql, pgBackRest, curl) in the seconds between choosing it and binding it.
taken=" "
read -r eph_lo eph_hi </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || { eph_lo=32768 eph_hi=60999; }
if [ "$eph_lo" -gt 12000 ]; then span_lo=10000 span_n=$((eph_lo - 10000)); else span_lo=$((eph_hi + 1)) span_n=$((65535 - eph_hi)); fi
free_port() {
	local p
	while :; do
		p=$((span_lo + (RANDOM * 32768 + RANDOM) % span_n))
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
chmod 755 "$work/sous"

log "cluster $major/$cluster (pg_createcluster), archiving as the page configures it"
export PGBACKREST_CONFIG=$work/pgbackrest.conf
"${as_pg[@]}" mkdir -p "$work/repo"
doc_block '<!-- pgbackrest.conf: read and used by task pitr' |
	set_key repo1-path "$work/repo" |
	set_key pg1-path "/var/lib/postgresql/$major/$cluster" |
	set_key pg1-port "$port" |
	"${as_pg[@]}" tee "$PGBACKREST_CONFIG" >/dev/null
pg_createcluster "$major" "$cluster" --port "$port" >/dev/null
[ -f "/etc/postgresql/$major/$cluster/postgresql.conf" ] || fail "pg_createcluster made no /etc/postgresql/$major/$cluster"
doc_block '<!-- postgresql conf.d: read and used by task pitr' >"/etc/postgresql/$major/$cluster/conf.d/pgbackrest.conf"
echo "PGBACKREST_CONFIG = '$PGBACKREST_CONFIG'" >>"/etc/postgresql/$major/$cluster/environment"
pg_ctlcluster "$major" "$cluster" start
psql_() { "${as_pg[@]}" psql -X -q -p "$1" -d sous -Atc "$2"; }
# Sous's own role, with a password: Debian's pg_hba.conf asks for one over TCP.
dbpass=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
"${as_pg[@]}" psql -X -q -p "$port" -d postgres -c "CREATE ROLE sous LOGIN PASSWORD '$dbpass'" -c 'CREATE DATABASE sous OWNER sous' >/dev/null
"${as_pg[@]}" pgbackrest --stanza=sous stanza-create
"${as_pg[@]}" pgbackrest --stanza=sous check

# start_sous PORT DBPORT [ARGS]: serves in the background and waits until it is ready.
start_sous() {
	local p=$1 db=$2
	shift 2
	DATABASE_URL="postgres://sous:$dbpass@127.0.0.1:$db/sous?sslmode=disable" SOUS_ADDR="127.0.0.1:$p" \
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
"${as_pg[@]}" pgbackrest --stanza=sous --type=full backup
# The restore names this backup: pgBackRest records a backup's stop time to the second, so one
# that ended within the second before the target would not be picked by time alone.
label=$("${as_pg[@]}" pgbackrest --stanza=sous --output=json info | jq -r '.[0].backup[-1].label')
for n in B1 B2 B3; do site "$n"; done

# The noted time: the database's clock, after every B was acknowledged, before any C.
target=$(psql_ "$port" "SET TimeZone = 'UTC'; SELECT to_char(clock_timestamp(), 'YYYY-MM-DD HH24:MI:SS.US') || '+00'")
log "noted time $target"
for n in C1 C2; do site "$n"; done

log "the disaster: DROP TABLE sites CASCADE"
psql_ "$port" 'SET client_min_messages = warning; DROP TABLE sites CASCADE'
# The drop's WAL must reach the repository for recovery to find a commit past the target:
# check switches to a new WAL segment and waits until the last one is archived.
"${as_pg[@]}" pgbackrest --stanza=sous check
kill "${pids[0]}"
wait "${pids[0]}" 2>/dev/null || true
pids=()
# The damaged cluster is stopped here only so that it cannot archive anything more; its files
# stay until the end, as the page says to keep them.
pg_ctlcluster "$major" "$cluster" stop

log "restore into a new cluster $major/$restored to the noted time"
pg_createcluster "$major" "$restored" --port "$port2" >/dev/null
rm -rf "/var/lib/postgresql/$major/$restored"/*
cp "/etc/postgresql/$major/$cluster/conf.d/pgbackrest.conf" "/etc/postgresql/$major/$restored/conf.d/"
echo "PGBACKREST_CONFIG = '$PGBACKREST_CONFIG'" >>"/etc/postgresql/$major/$restored/environment"
# The stanza now names the new cluster (archive-push refuses WAL from another data directory).
conf=$(set_key pg1-path "/var/lib/postgresql/$major/$restored" <"$PGBACKREST_CONFIG" | set_key pg1-port "$port2")
printf '%s\n' "$conf" | "${as_pg[@]}" tee "$PGBACKREST_CONFIG" >/dev/null
"${as_pg[@]}" pgbackrest --stanza=sous \
	--set="$label" --type=time --target="$target" --target-action=promote restore
pg_ctlcluster "$major" "$restored" start
for _ in $(seq 1 600); do
	[ "$(psql_ "$port2" 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ] && break
	sleep 0.1
done
[ "$(psql_ "$port2" 'SELECT pg_is_in_recovery()')" = f ] ||
	{ tail -20 "/var/log/postgresql/postgresql-$major-$restored.log" >&2; fail "the restored cluster never left recovery"; }
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
# And it takes writes again, and archives them on its new timeline.
site D1
"${as_pg[@]}" pgbackrest --stanza=sous check ||
	{ tail -20 "/var/log/postgresql/postgresql-$major-$restored.log" >&2; fail "the restored cluster does not archive"; }
log "OK: every write acknowledged before $target is back, none after"
