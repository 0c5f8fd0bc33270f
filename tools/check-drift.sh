#!/bin/sh
# The drift check: after `task generate`, fail if anything generated differs from what is
# committed. A failing `git status` (no repository, no git, a broken index) fails the check too:
# it must never read as "no drift".
set -u
paths="gen db openapi README.md docs"
# shellcheck disable=SC2086 # paths is a list
if ! changes="$(git status --porcelain -- $paths)"; then
  echo "drift check: git status failed; cannot tell whether the generated files are committed" >&2
  exit 1
fi
if [ -n "$changes" ]; then
  echo "Generated files differ from the committed ones. Run 'task generate' and commit:"
  echo "$changes"
  # shellcheck disable=SC2086
  git --no-pager diff --stat -- $paths
  exit 1
fi
echo "No drift."
