#!/usr/bin/env bash
# KAI-Scheduler v0.13.0's reclaim action beside poolgate on KAI's
# BenchmarkReclaimLargeJobs scenario: KAI's side, then poolgate's, back to back on this
# machine, then benchstat's table of the sides. See README.md.
#
# usage: bench/peers/kai/run.sh [-g git-dir] [-N nodes] [-n count] [-t benchtime]
#                               [-a benchtime] [-p pattern] [-o dir] [-l lockfile] [-s]
#
#   -g git-dir   a git repository (clone or bare mirror) of github.com/NVIDIA/KAI-Scheduler
#                holding tag v0.13.0; default $KAI_GIT. The module proxy does not serve
#                KAI v0.13.0, so its source comes from there (prepare.sh).
#   -N nodes     comma-separated cluster sizes, default 10,100; KAI's benchmark has 10, 50,
#                100, 200, 500 and 1000 (at 1000 one reclaim takes about a minute)
#   -n count     go test -count, default 6 (benchstat gives a confidence interval from 6)
#   -t benchtime go test -benchtime, default go's (1s)
#   -a benchtime the action-only benchmarks' -benchtime, default 20x: only the action is
#                timed, but every iteration also builds a session (100 to 150 ms), so
#                a time target would run a 1.4 ms action about 700 times a second timed
#   -p pattern   poolgate's -bench pattern, default KAIReclaimLargeJobs
#   -o dir       also keep the raw outputs in dir
#   -l lockfile  hold an exclusive flock(1) on lockfile around each timed run, so that
#                timed runs of several scripts on one machine do not overlap
#   -s           skip the probe that prints and checks KAI's decision before the benchmarks
#
# The sides, one benchstat column each:
#   kai-v0.13.0           KAI's own BenchmarkReclaimLargeJobs_<N>Node, unmodified:
#                         test_utils.BuildSession (about 100 ms of it an informer-sync
#                         wait) and reclaim's Execute
#   kai-v0.13.0-action    BenchmarkKAIReclaimActionOnly_<N>Node (extra/): the same with
#                         BuildSession outside the timer, reclaim's Execute alone
#   poolgate              go test ./bench -run '^$' -bench KAIReclaimLargeJobs -benchmem
#                         at the repository's root: Gate.Decide of the same gang
# Names are rewritten to ReclaimLargeJobs_<N>Node on every side (poolgate's when its
# benchmark's name carries the node count) so that benchstat sets them side by side.
# Everything the script writes goes to a temporary directory, removed on exit (and, with
# -o, to dir); the module cache is only read.
set -euo pipefail

usage() { sed -n '5,36p' "$0" | sed 's/^# \{0,1\}//'; }

git_dir=${KAI_GIT:-} nodes=10,100 count=6 benchtime= action_bt=20x pattern=KAIReclaimLargeJobs keep= lock= probe=1
while getopts 'g:N:n:t:a:p:o:l:sh' opt; do
  case $opt in
  g) git_dir=$OPTARG ;;
  N) nodes=$OPTARG ;;
  n) count=$OPTARG ;;
  t) benchtime=$OPTARG ;;
  a) action_bt=$OPTARG ;;
  p) pattern=$OPTARG ;;
  o) keep=$OPTARG ;;
  l) lock=$OPTARG ;;
  s) probe=0 ;;
  h) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }
if [ -z "$git_dir" ]; then
  echo "run.sh: give a git repository of github.com/NVIDIA/KAI-Scheduler with tag v0.13.0 (-g dir or KAI_GIT)" >&2
  exit 2
fi
[[ $nodes =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "run.sh: -N wants node counts such as 10,100" >&2; exit 2; }
if [ -n "$lock" ] && ! command -v flock >/dev/null; then
  echo "run.sh: -l needs flock(1)" >&2
  exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
git_dir=$(cd "$git_dir" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/poolgate-kai.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

benchstat=$(command -v benchstat || true)
if [ -z "$benchstat" ] && [ -x "$(go env GOPATH)/bin/benchstat" ]; then
  benchstat=$(go env GOPATH)/bin/benchstat
fi
if [ -z "$benchstat" ]; then
  echo "benchstat is missing; installing it into the temporary directory" >&2
  GOBIN=$tmp/bin go install golang.org/x/perf/cmd/benchstat@latest
  benchstat=$tmp/bin/benchstat
fi

# timed CMD...: CMD, under the lock when -l was given.
timed() {
  if [ -n "$lock" ]; then
    flock "$lock" "$@"
  else
    "$@"
  fi
}

# results keeps what benchstat reads: the configuration lines and the benchmark lines,
# without pkg:, which differs between the sides and would split the table. A line a
# benchmark writes between its name and its figures is dropped and the name joined back.
results() {
  awk '
    /^(goos|goarch|cpu):/ { print; next }
    /^Benchmark/ && / ns\/op/ { print; held = ""; next }
    /^Benchmark/ { held = $1; next }
    held != "" && /^[ \t]*[0-9]+[ \t]+[0-9.]+ ns\/op/ { sub(/^[ \t]+/, ""); print held "\t" $0; held = "" }
  '
}

# KAI's source at v0.13.0 beside a copy of this module, with the extra/ files.
echo "== KAI v0.13.0 from $git_dir" >&2
KAI_GIT=$git_dir KAI_SRC= "$here/prepare.sh" "$tmp/kai" --extra

# Build the test binary first, outside the timed runs (the first build downloads KAI's
# dependencies through the module proxy and takes minutes). -trimpath keeps the build
# cache's entries for KAI's packages valid from one temporary directory to the next.
pkg=github.com/NVIDIA/KAI-scheduler/pkg/scheduler/actions/integration_tests/reclaim
echo "== building $pkg's tests" >&2
(cd "$tmp/kai" && go test -c -trimpath -o "$tmp/reclaim.test" "$pkg")
pkgdir=$tmp/kai/kai-src/pkg/scheduler/actions/integration_tests/reclaim

if [ "$probe" = 1 ]; then
  echo "== KAI's decision (TestKAIReclaimProbe, KAI_PROBE_NODES=$nodes)"
  (cd "$pkgdir" && KAI_PROBE_NODES=$nodes "$tmp/reclaim.test" -test.run '^TestKAIReclaimProbe$' -test.v -test.count 1) |
    grep -v '^=== RUN' || { echo "run.sh: KAI's probe failed" >&2; exit 1; }
fi

sizes=${nodes//,/|}
flags=(-test.run '^$' -test.benchmem -test.count "$count" -test.timeout 0)
mkdir -p "$tmp/out"

# kai LABEL BENCH BENCHTIME: one of KAI's sides into $tmp/out/LABEL.
kai() {
  local label=$1 bench=$2 bt=$3 f=("${flags[@]}")
  [ -n "$bt" ] && f+=(-test.benchtime "$bt")
  echo "== $label: $pkg -bench '$bench'${bt:+ -benchtime $bt}" >&2
  (cd "$pkgdir" && timed "$tmp/reclaim.test" -test.bench "$bench" "${f[@]}") | tee "$tmp/out/$label.raw" | results |
    sed -E 's#^BenchmarkKAIReclaimActionOnly_#BenchmarkReclaimLargeJobs_#' >"$tmp/out/$label"
}
kai kai-v0.13.0 "^BenchmarkReclaimLargeJobs_($sizes)Node\$" "$benchtime"
kai kai-v0.13.0-action "^BenchmarkKAIReclaimActionOnly_($sizes)Node\$" "$action_bt"

# poolgate's side, at the repository's root. Its names become KAI's when they carry the
# node count: KAIReclaimLargeJobs/nodes=100, /N=100, /100, /100Node or _100Node.
poolgate_names='s#^BenchmarkKAIReclaimLargeJobs([/_]([A-Za-z]+=)?([0-9]+)([_-]?[Nn]odes?)?)?(-[0-9]+)?([[:space:]])#BenchmarkReclaimLargeJobs_\3Node\5\6#'
list=$(cd "$root" && go test -list "$pattern" ./bench 2>&1) || true
if grep -q '^Benchmark' <<<"$list"; then
  pgflags=(-run '^$' -bench "$pattern" -benchmem -count "$count" -timeout 0)
  [ -n "$benchtime" ] && pgflags+=(-benchtime "$benchtime")
  echo "== poolgate: go test ./bench ${pgflags[*]}" >&2
  (cd "$root" && timed go test ./bench "${pgflags[@]}") | tee "$tmp/out/poolgate.raw" | results |
    sed -E "$poolgate_names" | sed -E 's#^BenchmarkReclaimLargeJobs_Node#BenchmarkReclaimLargeJobs#' >"$tmp/out/poolgate"
else
  echo "-- poolgate: no benchmark matches $pattern in ./bench yet; skipped" >&2
  sed 's/^/   /' <<<"$list" | head -20 >&2
fi

echo "== results"
args=()
for label in kai-v0.13.0 kai-v0.13.0-action poolgate; do
  [ -s "$tmp/out/$label" ] && grep -q '^Benchmark' "$tmp/out/$label" && args+=("$label=$tmp/out/$label")
done
if [ ${#args[@]} -eq 0 ]; then
  echo "(no results)"
else
  "$benchstat" "${args[@]}"
fi
if [ -n "$keep" ]; then
  mkdir -p "$keep" && cp "$tmp/out"/* "$keep/"
fi
