#!/bin/bash
# One HL7 ingest benchmark run on a fresh database (see docs/benchmarks.md#clinical):
#
#   tools/hl7gen/bench.sh NAME cold|analyzed LOADGEN-ARGS...
#
# creates the database NAME on $PGHOST_URL (default postgres://postgres@127.0.0.1:5432), starts
# $BENCH/sous on it (migrations applied, debug log with the ingest's phase timings in
# $BENCH/server-NAME.log), registers an organization with a site and an API key, writes $BODIES
# (default 3200) bodies of 100 messages with `hl7gen -mix stay`, and runs $BENCH/loadgen with
# LOADGEN-ARGS on them. `analyzed` first fills the census with 300 bodies at 15/s and runs
# VACUUM ANALYZE; `cold` does neither, as on a user's first hour. SITES=n (default 1) creates n
# sites and sends each its own feed of $BODIES/n bodies, interleaved: feeds of different sites
# share no patient, so their bodies may be applied concurrently. Build the binaries first:
#
#   go build -o $BENCH/sous ./cmd/sous && go build -C tools -o $BENCH/loadgen ./loadgen && go build -C tools -o $BENCH/hl7gen ./hl7gen
set -e
NAME=$1; MODE=$2; shift 2
D=${BENCH:-/tmp/hl7bench}; PG=${PGHOST_URL:-postgres://postgres@127.0.0.1:5432}
DB=benchhl7_$NAME; PORT=${PORT:-38480}; B=http://127.0.0.1:$PORT/v1
psql -q "$PG/postgres" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
DATABASE_URL="$PG/$DB?sslmode=disable" SOUS_DATA_DIR=$D/data SOUS_ADDR=127.0.0.1:$PORT \
  SOUS_ACCESS_LOG=false SOUS_LOG_LEVEL=debug ${SOUS_BIN:-$D/sous} serve > $D/server-$NAME.log 2>&1 &
SRV=$!
trap "kill $SRV 2>/dev/null; wait $SRV 2>/dev/null" EXIT
for _ in $(seq 100); do curl -sf $B/.well-known/jwks.json >/dev/null && break; sleep 0.2; done
R=$(curl -s $B/auth/register -H 'content-type: application/json' \
  -d "{\"name\":\"Bench\",\"email\":\"bench-$NAME@example.com\",\"password\":\"walk-in-cooler-pantry-9\",\"orgName\":\"Bench General\"}")
TOK=$(echo "$R" | jq -r .accessToken); ORG=$(echo "$R" | jq -r '.user.memberships[0].orgId')
site() {
  curl -s $B/orgs/$ORG/sites -H "authorization: Bearer $TOK" -H 'content-type: application/json' \
    -d "{\"name\":\"$1\",\"timezone\":\"America/Chicago\"}" | jq -r .id
}
SITE=$(site "Main campus")
KEY=$(curl -s $B/orgs/$ORG/api-keys -H "authorization: Bearer $TOK" -H 'content-type: application/json' \
  -d '{"name":"bench engine"}' | jq -r .key)
rm -rf $D/b-$NAME
SITES=${SITES:-1}
if [ "$SITES" -le 1 ]; then
  $D/hl7gen -org $ORG -site $SITE -base http://127.0.0.1:$PORT -mix stay -bodies ${BODIES:-3200} -prefix R -out $D/b-$NAME >/dev/null
else
  lists=()
  for i in $(seq $SITES); do
    [ $i -gt 1 ] && SITE=$(site "Campus $i")
    $D/hl7gen -org $ORG -site $SITE -base http://127.0.0.1:$PORT -mix stay -bodies $(( ${BODIES:-3200} / SITES )) \
      -prefix R$i -out $D/b-$NAME/s$i >/dev/null
    # one target a line (its lines joined by tabs), for paste to interleave
    awk 'BEGIN { RS = "" } { gsub("\n", "\t"); print }' $D/b-$NAME/s$i/targets.txt > $D/b-$NAME/s$i/lines
    lists+=($D/b-$NAME/s$i/lines)
  done
  paste -d '\n' "${lists[@]}" | awk '{ gsub("\t", "\n"); print; print "" }' > $D/b-$NAME/targets.txt
fi
if [ "$MODE" = analyzed ]; then
  rm -rf $D/w-$NAME
  $D/hl7gen -org $ORG -site $SITE -base http://127.0.0.1:$PORT -mix stay -bodies 300 -prefix W -out $D/w-$NAME >/dev/null
  $D/loadgen -base http://127.0.0.1:$PORT -targets $D/w-$NAME/targets.txt -header "x-api-key: $KEY" -rate 15 -duration 20s > $D/warm-$NAME.txt 2>&1
  psql -q "$PG/$DB" -c "VACUUM ANALYZE"
fi
cpu() { # utime+stime, in 1/100 s, of the server and of its database backends
  local t=$(awk '{print $14+$15}' /proc/$SRV/stat)
  for p in $(pgrep -f "postgres: .*postgres $DB "); do t=$((t + $(awk '{print $14+$15}' /proc/$p/stat 2>/dev/null || echo 0))); done
  echo $t
}
C0=$(cpu); S0=$(awk '{print $14+$15}' /proc/$SRV/stat)
echo "run $NAME ($MODE) load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
$D/loadgen -base http://127.0.0.1:$PORT -targets $D/b-$NAME/targets.txt -header "x-api-key: $KEY" "$@"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
C1=$(cpu); S1=$(awk '{print $14+$15}' /proc/$SRV/stat)
echo "cpu ticks (1/100 s): server+backends $((C1-C0)), server $((S1-S0))"
psql -At "$PG/$DB" -c "SELECT outcome, count(*) FROM hl7_messages GROUP BY 1 ORDER BY 1" | tr '\n' ' '; echo
psql -At "$PG/$DB" -c "SELECT relname, n_live_tup, coalesce(last_autoanalyze::text, 'never') FROM pg_stat_user_tables WHERE relname IN ('hl7_messages', 'patients')" | tr '\n' ' '; echo
