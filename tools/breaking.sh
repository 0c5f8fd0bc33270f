#!/usr/bin/env bash
# The breaking-change gate of the published contract (`task breaking`, run by CI).
#
# Compares gen/openapi.yaml with oasdiff (pinned in tools/go.mod) against
#   1. openapi/baseline.yaml, the last released contract (updated deliberately, at a release);
#   2. gen/openapi.yaml at the previous commit (HEAD~1; on main, the previous state of main),
#      skipped when there is none;
# and fails on any breaking change (oasdiff level ERR) not accepted in docs/api-changelog.md: a
# line of its "Accepted breaking changes" section naming the change (method, path and the text
# `task api-changelog` prints) and, after "reason:", why it is acceptable.
#
# Response enums are documented as open (clients handle unknown values, e.g. a new error code by
# its HTTP status), so adding a value to one is reported as information, not a break
# (tools/oasdiff-levels.txt).
#
#   tools/breaking.sh            the gate
#   tools/breaking.sh changelog  print the changes since the baseline, breaking ones first, as
#                                lines to paste into docs/api-changelog.md (add the reason)
#
# BREAKING_SPEC, BREAKING_BASELINE, BREAKING_CHANGELOG and BREAKING_BASE_REF (a git ref, or
# "none") override the inputs, for tests.
set -euo pipefail
cd "$(dirname "$0")/.."

spec=${BREAKING_SPEC:-gen/openapi.yaml}
baseline=${BREAKING_BASELINE:-openapi/baseline.yaml}
changelog=${BREAKING_CHANGELOG:-docs/api-changelog.md}
base_ref=${BREAKING_BASE_REF:-HEAD~1}
levels=tools/oasdiff-levels.txt

oasdiff() { go tool -modfile=tools/go.mod oasdiff "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "${1:-}" = changelog ]; then
	oasdiff changelog "$baseline" "$spec" --severity-levels "$levels" --format json |
		jq -r 'sort_by(-.level) | .[] |
			"- \(.operation // "") \(.path // "components") \(.text)" +
			(if .level == 3 then " — reason: …" else "" end)'
	exit 0
fi

# Only accepted entries with a reason count: the section's list lines containing "reason:" that
# say something after it.
awk '/^## /{on = ($0 ~ /^## Accepted breaking changes/)} on && /^- / && /reason: *[^ …]/' "$changelog" >"$tmp/accepted.txt"

status=0
gate() { # gate <label> <base spec>
	echo "== breaking changes against $1"
	if oasdiff breaking "$2" "$spec" --severity-levels "$levels" --err-ignore "$tmp/accepted.txt" \
		--fail-on ERR --format text --color never >"$tmp/out.txt" 2>&1; then
		if grep -q . "$tmp/out.txt"; then cat "$tmp/out.txt"; else echo "none"; fi
	else
		cat "$tmp/out.txt"
		echo "Breaking changes above are not accepted in $changelog (run 'task api-changelog'," \
			"add the lines under \"Accepted breaking changes\" with a reason, or make the change compatible)."
		status=1
	fi
}

gate "$baseline (the released contract)" "$baseline"

if [ "$base_ref" = none ]; then
	echo "== previous commit: skipped (BREAKING_BASE_REF=none)"
elif ! git rev-parse -q --verify "$base_ref^{commit}" >/dev/null 2>&1; then
	echo "== previous commit: skipped ($base_ref does not exist, e.g. a first commit or a shallow clone)"
elif ! git show "$base_ref:$spec" >"$tmp/previous.yaml" 2>/dev/null; then
	echo "== previous commit: skipped ($spec is not in $base_ref)"
else
	gate "$spec at $base_ref" "$tmp/previous.yaml"
fi
exit $status
