#!/usr/bin/env bash
# The README's test command (`go tool -modfile=tools/go.mod task test` runs this): everything a
# fresh clone needs, then every test.
#   1. tools/test-deps.sh installs what the tests run for real when it is missing.
#   2. One throwaway PostgreSQL server for the whole run (withpg), unless TEST_DATABASE_URL names
#      one: every test binary clones its databases from one migrated template there, instead of
#      each starting a server of its own.
#   3. The server's tests, the monitoring rules' tests (promtool) and the tools' tests (the
#      walk-throughs of the README and the guides, the TypeScript client, the browser tests).
# A test whose real peer is missing fails here rather than skipping (SOUS_TEST_REQUIRE_TOOLS).
# Nothing tracked changes: what the tests write goes to temporary directories.
set -euo pipefail
cd "$(dirname "$0")/.."

./tools/test-deps.sh
export SOUS_TEST_REQUIRE_TOOLS=1

run_all() {
	set -e
	echo "== go test ./..." >&2
	go test "$@" ./...
	echo "== monitoring rules (promtool)" >&2
	promtool check rules docs/operations/monitoring/alerts.yml docs/operations/monitoring/slo.yml
	(cd docs/operations/monitoring && promtool test rules alerts.test.yml)
	echo "== tools: go test ./..." >&2
	# -count=1: readmecheck runs a server built from the whole repository, which Go's test
	# cache cannot see change.
	(cd tools && go test -count=1 "$@" ./...)
}
export -f run_all
go run ./internal/pg/pgtest/withpg -- bash -c 'run_all "$@"' run_all "$@"
