#!/usr/bin/env bash
# Installs pg_auto_failover for the PostgreSQL major version on this machine (Debian packages),
# unless pg_autoctl is already there. Needs root (CI runs as root) or passwordless sudo.
set -euo pipefail
if command -v pg_autoctl >/dev/null 2>&1; then
	exit 0
fi
major=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)
if [ -z "$major" ]; then
	echo "failover: no PostgreSQL server under /usr/lib/postgresql" >&2
	exit 1
fi
sudo_=""
if [ "$(id -u)" != 0 ]; then sudo_="sudo"; fi
pkg="postgresql-$major-auto-failover"
# A package index fetched while a mirror is mid-update can lack the package: read it again.
for attempt in 1 2 3; do
	$sudo_ apt-get update -qq || true
	# Read whole before matching: grep -q stops at the first match, and under pipefail the
	# writer's SIGPIPE would fail the test.
	policy=$(apt-cache policy "$pkg")
	if grep -q 'Candidate: [0-9]' <<<"$policy"; then
		break
	fi
	if [ "$attempt" = 3 ]; then
		echo "failover: the package $pkg is not available" >&2
		exit 1
	fi
	sleep 10
done
DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "$pkg" >/dev/null
