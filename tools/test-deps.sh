#!/usr/bin/env bash
# Installs what the tests need when it is missing, on a fresh machine as on a developer's:
#   - the tools' npm packages (TypeScript, axe-core for the hosted pages' accessibility check, the
#     spec bundler), from the lockfile, when tools/node_modules does not match it;
#   - the Debian packages the tests run for real: jq (the walk-throughs), chromium (the browser
#     tests), pgbouncer (one replica through a transaction pooler), prometheus (the scrape test and
#     promtool's rule tests), haproxy (the load balancer configuration of the high-availability
#     page), openssl (its signing-key command). As root they are installed with apt-get; otherwise the script names
#     what to install and stops.
# Go, Node with npm and the PostgreSQL server binaries are the machine's (see the README).
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }

for cmd in go node npm; do
	need "$cmd" || { echo "test-deps: $cmd is required and not installed" >&2; exit 1; }
done

missing=()
need jq || missing+=(jq)
need chromium || need chromium-browser || need google-chrome || missing+=(chromium)
need pgbouncer || missing+=(pgbouncer)
{ need prometheus && need promtool; } || missing+=(prometheus)
need haproxy || missing+=(haproxy)
need openssl || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
		echo "test-deps: installing ${missing[*]} (apt-get)" >&2
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	else
		echo "test-deps: the tests need these packages, not installed here: ${missing[*]}" >&2
		echo "test-deps: on Debian or Ubuntu: sudo apt-get install ${missing[*]}" >&2
		exit 1
	fi
fi

# After an install from the lockfile a stamp records the lockfile's hash, so the install (which
# takes a while and needs the registry) runs again only when the lockfile changes.
stamp=tools/node_modules/.installed-from-lockfile
want=$(sha256sum tools/package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	echo "test-deps: npm ci --prefix tools" >&2
	npm ci --prefix tools --no-audit --no-fund --loglevel=error
	echo "$want" >"$stamp"
fi
