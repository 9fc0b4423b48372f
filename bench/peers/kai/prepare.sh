#!/usr/bin/env bash
# Prepares DIR: a copy of this module in which `go test github.com/NVIDIA/KAI-scheduler/...`
# runs KAI-Scheduler v0.13.0's own tests and benchmarks. The Go module proxy does not serve
# that version (see README.md), so the copy gets KAI's source from a git repository of
# github.com/NVIDIA/KAI-Scheduler: `git archive v0.13.0` into DIR/kai-src, checked against
# the tag's commit, and
#   replace github.com/NVIDIA/KAI-scheduler v0.13.0 => ./kai-src
# in DIR/go.mod. This module's go.mod and go.sum pin everything else, which comes from the
# Go module proxy. KAI's files are not changed.
#
# usage: prepare.sh DIR [--extra]
#   --extra   also copy extra/*.go.in into the copy of KAI's packages (the probes and the
#             action-only benchmarks; see README.md). KAI's own files stay as tagged.
# env:   KAI_GIT  a git directory (clone or bare mirror) holding tag v0.13.0, or
#        KAI_SRC  a KAI source tree already at v0.13.0 (copied, not changed)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: prepare.sh DIR [--extra]}
extra=${2:-}
tag=v0.13.0
commit=5d35ecab74e693d6f40309d2e23a68b8ac138571
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cp "$here/go.mod" "$here/go.sum" "$here/doc.go" "$here/tools.go" "$dir/"
chmod u+w "$dir/go.mod" "$dir/go.sum" "$dir/doc.go" "$dir/tools.go"
rm -rf "$dir/kai-src" && mkdir "$dir/kai-src"
if [ -n "${KAI_SRC:-}" ]; then
  cp -a "$KAI_SRC/." "$dir/kai-src/"
  rm -rf "$dir/kai-src/.git"
elif [ -n "${KAI_GIT:-}" ]; then
  got=$(git --git-dir="$KAI_GIT" rev-parse "$tag^{commit}" 2>/dev/null || git -C "$KAI_GIT" rev-parse "$tag^{commit}")
  [ "$got" = "$commit" ] || { echo "prepare.sh: $tag in $KAI_GIT is $got, want $commit" >&2; exit 2; }
  { git --git-dir="$KAI_GIT" archive "$tag" 2>/dev/null || git -C "$KAI_GIT" archive "$tag"; } | tar -x -C "$dir/kai-src"
else
  echo "prepare.sh: set KAI_GIT (a git directory of github.com/NVIDIA/KAI-Scheduler with tag $tag) or KAI_SRC" >&2
  exit 2
fi
grep -q '^module github.com/NVIDIA/KAI-scheduler$' "$dir/kai-src/go.mod" || { echo "prepare.sh: kai-src is not KAI's module" >&2; exit 2; }
(cd "$dir" && go mod edit -replace "github.com/NVIDIA/KAI-scheduler@$tag=./kai-src")
if [ "$extra" = --extra ]; then
  cp "$here/extra/zz_kai_probe_test.go.in" "$dir/kai-src/pkg/scheduler/actions/zz_kai_probe_test.go"
  cp "$here/extra/zz_kai_reclaim_probe_test.go.in" \
    "$dir/kai-src/pkg/scheduler/actions/integration_tests/reclaim/zz_kai_reclaim_probe_test.go"
fi
