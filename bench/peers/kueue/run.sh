#!/usr/bin/env bash
# Kueue v0.19.2 beside poolgate: for each benchmark family, Kueue's side then poolgate's,
# back to back on this machine, then benchstat's table of the two. See README.md.
#
# usage: bench/peers/kueue/run.sh [-f families] [-n count] [-t benchtime] [-o dir] [-s]
#
#   -f families  comma-separated, default quota,drs:
#        quota       Fits, AddRemoveUsage and Snapshot on Kueue's four reference trees
#                    (poolgate: quota's BenchmarkKueueShapes{Fits,AddRemove,Clone})
#        quota-all   quota, plus FitsAllCQs, Available and FlavorAssignerQuota
#        drs         the dominant resource share of fair sharing, BenchmarkDRS/<tree>
#                    (poolgate: quota's BenchmarkKueueShapesDRS)
#        tas         Kueue's own BenchmarkTASFlavorAssignment (balanced placement),
#                    unmodified, from the module cache (poolgate: bench's
#                    BenchmarkTASAssignment, Place of the same requests on the same nodes)
#        tas-greedy  the same shapes with TASBalancedPlacement off, its v0.19.2 default:
#                    the greedy best-fit path (scheduler/*.go.in, in a scratch copy of
#                    Kueue; poolgate: as for tas)
#        tas-fragmented  the same shapes on a cluster where a third of each rack's nodes
#                    are half full, greedy and balanced (poolgate:
#                    BenchmarkTASAssignmentFragmented)
#        tas-selector  the same shapes restricted to GPU model A, half of the racks: a
#                    ResourceFlavor's nodeLabels in Kueue, node selectors in poolgate
#                    (BenchmarkTASAssignmentSelector); greedy and balanced
#        tas-snapshot  Kueue's own BenchmarkTASFlavorSnapshot, the per-cycle TAS
#                    snapshot, unmodified (poolgate: bench's BenchmarkTASSnapshot,
#                    Clone for mode=reuse and NewCluster for mode=invalidate-every-cycle)
#        flavors     Kueue's flavor assigner (FlavorAssigner.Assign with the scheduler's
#                    preemption oracle) on 1, 2 and 8 GPU models, fit, borrow and preempt
#                    (BenchmarkFlavorAssigner in flavors_test.go; poolgate: bench's
#                    BenchmarkFlavorDecide, Gate.Decide on a gate with the same flavors)
#        flavors-into  the same, poolgate's decisions written into one Decision
#                    (BenchmarkFlavorDecideInto, Gate.DecideInto), as a host deciding
#                    workload after workload does
#   -n count     go test -count, default 5
#   -t benchtime go test -benchtime, default go's (1s), and 2s for the tas families
#   -o dir       also keep the raw outputs, one directory per family, in dir
#   -s           skip the fixture checks that run before the benchmarks
#
# A side with no benchmarks of a family yet is skipped with a note, and the table shows
# the other side alone. Everything the script writes goes to a temporary directory,
# removed on exit (and, with -o, to dir); the module cache is only read.
set -euo pipefail

usage() { sed -n '4,42p' "$0" | sed 's/^# \{0,1\}//'; }

families=quota,drs count=5 benchtime= keep= check=1
while getopts 'f:n:t:o:sh' opt; do
  case $opt in
  f) families=$OPTARG ;;
  n) count=$OPTARG ;;
  t) benchtime=$OPTARG ;;
  o) keep=$OPTARG ;;
  s) check=0 ;;
  h) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/poolgate-kueue.XXXXXX")
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

# results keeps what benchstat reads: the configuration lines and the benchmark lines,
# without pkg:, which differs between the sides and would split the table. A message
# written to stderr while a benchmark runs (controller-runtime's, in Kueue's packages,
# 30 s after the process starts: log.SetLogger was never called, and a stack trace)
# lands between the benchmark's name and its figures; the name is joined back to them.
results() {
  awk '
    /^(goos|goarch|cpu):/ { print; next }
    /^Benchmark/ && / ns\/op/ { print; held = ""; next }
    /^Benchmark/ { held = $1; next }
    held != "" && /^[ \t]*[0-9]+[ \t]+[0-9.]+ ns\/op/ { sub(/^[ \t]+/, ""); print held "\t" $0; held = "" }
  '
}

# gotest DIR PKG TESTS BENCH BENCHTIME: go test in DIR, the fixture checks TESTS (unless
# -s) then the benchmarks BENCH, in one process so that they share the fixtures.
gotest() {
  local dir=$1 pkg=$2 tests=$3 bench=$4 bt=$5 run='^$'
  [ "$check" = 1 ] && [ -n "$tests" ] && run=$tests
  local flags=(-run "$run" -bench "$bench" -benchmem -count "$count" -timeout 0)
  [ -n "$bt" ] && flags+=(-benchtime "$bt")
  (cd "$dir" && go test "${flags[@]}" "$pkg")
}

# has DIR PKG BENCH: whether PKG, built in DIR, has a benchmark matching BENCH. (The
# list is read whole: grep -q would stop early and fail the pipe under pipefail.)
has() {
  local list
  list=$(cd "$1" && go test -list "$3" "$2" 2>/dev/null) || true
  grep -q '^Benchmark' <<<"$list"
}

# side LABEL DIR PKG TESTS BENCH BENCHTIME [SED]: run one side into $out/LABEL, its
# names rewritten by SED, or note that the side has no such benchmarks. A side already
# run for another family of this invocation, with the same benchmarks, is reused.
side() {
  local label=$1 dir=$2 pkg=$3 tests=$4 bench=$5 bt=$6 rename=${7:-}
  local key
  key=$tmp/runs/$(printf '%s\n' "$dir" "$pkg" "$bench" "$bt" "$rename" | cksum | cut -d' ' -f1)
  if [ -s "$key" ]; then
    echo "-- $label: the results of $pkg -bench '$bench' from above" >&2
    cp "$key" "$out/$label"
    return
  fi
  if ! has "$dir" "$pkg" "$bench"; then
    echo "-- $label: no benchmark matches $bench in $pkg yet; skipped" >&2
    return
  fi
  echo "-- $label: go test $pkg -bench '$bench'" >&2
  gotest "$dir" "$pkg" "$tests" "$bench" "$bt" | results | sed -E "$rename" >"$out/$label"
  mkdir -p "$tmp/runs" && cp "$out/$label" "$key"
}

# table: benchstat over the sides of the family that ran.
table() {
  local args=()
  for label in kueue-v0.19.2 kueue-v0.19.2-greedy poolgate; do
    [ -s "$out/$label" ] && args+=("$label=$out/$label")
  done
  if [ ${#args[@]} -eq 0 ]; then
    echo "(no results)"
    return
  fi
  "$benchstat" "${args[@]}"
  if [ -n "$keep" ]; then
    mkdir -p "$keep/$family" && cp "$out"/* "$keep/$family/"
  fi
}

# scratch_kueue: a copy of Kueue's module in $tmp with this directory's scheduler/*.go.in
# added to its pkg/cache/scheduler (Kueue's side of the shapes beyond its own benchmark),
# and a copy of this module pointed at it. Kueue's own files in the module cache are
# never written, and none of Kueue's files in the copy is changed.
scratch_kueue() {
  [ -d "$tmp/mod" ] && return
  local src f
  src=$(cd "$here" && go list -m -f '{{.Dir}}' sigs.k8s.io/kueue)
  cp -r "$src" "$tmp/kueue" && chmod -R u+w "$tmp/kueue"
  for f in "$here"/scheduler/*.go.in; do
    cp "$f" "$tmp/kueue/pkg/cache/scheduler/$(basename "${f%.in}")"
  done
  mkdir "$tmp/mod"
  cp "$here/go.mod" "$here/go.sum" "$here/tools.go" "$tmp/mod/"
  echo "replace sigs.k8s.io/kueue => $tmp/kueue" >>"$tmp/mod/go.mod"
}

# kueue_tas VARIANT: Kueue's balanced and greedy sides of a shape family from the
# scratch copy, the greedy one named as the balanced one so that benchstat pairs them.
kueue_tas() {
  local v=$1 names
  names="s#^BenchmarkTASFlavorAssignment${v}GateOff/#BenchmarkTASFlavorAssignment${v}/#"
  scratch_kueue
  side kueue-v0.19.2 "$tmp/mod" sigs.k8s.io/kueue/pkg/cache/scheduler '' "^BenchmarkTASFlavorAssignment${v}\$" "$tas_bt"
  side kueue-v0.19.2-greedy "$tmp/mod" sigs.k8s.io/kueue/pkg/cache/scheduler '' "^BenchmarkTASFlavorAssignment${v}GateOff\$" "$tas_bt" "$names"
}

# poolgate_tas VARIANT: poolgate's side of a shape family, named as Kueue's.
poolgate_tas() {
  local v=$1
  side poolgate "$root" ./bench '^TestTAS(Fixtures|SelectorFixtures)$' "^BenchmarkTASAssignment${v}\$" "$tas_bt" \
    "s#^BenchmarkTASAssignment${v}/#BenchmarkTASFlavorAssignment${v}/#"
}

tas_bt=${benchtime:-2s}
quota_names='s#^BenchmarkKueueShapesFitsAllQueues/#BenchmarkFitsAllCQs/#;s#^BenchmarkKueueShapesFits/#BenchmarkFits/#;s#^BenchmarkKueueShapesAvailable/#BenchmarkAvailable/#;s#^BenchmarkKueueShapesFlavorAssignerQuota/#BenchmarkFlavorAssignerQuota/#;s#^BenchmarkKueueShapesAddRemove/#BenchmarkAddRemoveUsage/#;s#^BenchmarkKueueShapesClone/#BenchmarkSnapshot/#'

IFS=, read -ra selected <<<"$families"
for family in "${selected[@]}"; do
  out=$tmp/$family
  mkdir -p "$out"
  echo "== $family"
  case $family in
  quota)
    side kueue-v0.19.2 "$here" . '^TestShapes$' '^Benchmark(Fits|AddRemoveUsage|Snapshot)$' "$benchtime"
    side poolgate "$root" ./quota '^TestKueueShapes$' '^BenchmarkKueueShapes(Fits|AddRemove|Clone)$' "$benchtime" "$quota_names"
    ;;
  quota-all)
    side kueue-v0.19.2 "$here" . '^TestShapes$' '^Benchmark(Fits|FitsAllCQs|Available|FlavorAssignerQuota|AddRemoveUsage|Snapshot)$' "$benchtime"
    side poolgate "$root" ./quota '^TestKueueShapes$' \
      '^BenchmarkKueueShapes(Fits|FitsAllQueues|Available|FlavorAssignerQuota|AddRemove|Clone)$' "$benchtime" "$quota_names"
    ;;
  drs)
    side kueue-v0.19.2 "$here" . '^TestDRS$' '^BenchmarkDRS$' "$benchtime"
    side poolgate "$root" ./quota '^TestKueueShapes' '^BenchmarkKueueShapesDRS$' "$benchtime" 's#^BenchmarkKueueShapesDRS/#BenchmarkDRS/#'
    ;;
  tas)
    side kueue-v0.19.2 "$here" sigs.k8s.io/kueue/pkg/cache/scheduler '' '^BenchmarkTASFlavorAssignment$' "$tas_bt"
    poolgate_tas ''
    ;;
  tas-greedy)
    scratch_kueue
    side kueue-v0.19.2-greedy "$tmp/mod" sigs.k8s.io/kueue/pkg/cache/scheduler '' '^BenchmarkTASFlavorAssignmentGateOff$' "$tas_bt" \
      's#^BenchmarkTASFlavorAssignmentGateOff/#BenchmarkTASFlavorAssignment/#'
    poolgate_tas ''
    ;;
  tas-fragmented)
    kueue_tas Fragmented
    poolgate_tas Fragmented
    ;;
  tas-selector)
    kueue_tas Selector
    poolgate_tas Selector
    ;;
  tas-snapshot)
    side kueue-v0.19.2 "$here" sigs.k8s.io/kueue/pkg/cache/scheduler '' '^BenchmarkTASFlavorSnapshot$' "$tas_bt"
    side poolgate "$root" ./bench '' '^BenchmarkTASSnapshot$' "$tas_bt" 's#^BenchmarkTASSnapshot/#BenchmarkTASFlavorSnapshot/#'
    ;;
  flavors)
    side kueue-v0.19.2 "$here" . '^TestFlavors$' '^BenchmarkFlavorAssigner$' "$benchtime"
    side poolgate "$root" ./bench '^TestFlavorFixtures$' '^BenchmarkFlavorDecide$' "$benchtime" 's#^BenchmarkFlavorDecide/#BenchmarkFlavorAssigner/#'
    ;;
  flavors-into)
    side kueue-v0.19.2 "$here" . '^TestFlavors$' '^BenchmarkFlavorAssigner$' "$benchtime"
    side poolgate "$root" ./bench '^TestFlavorFixtures$' '^BenchmarkFlavorDecideInto$' "$benchtime" 's#^BenchmarkFlavorDecideInto/#BenchmarkFlavorAssigner/#'
    ;;
  *)
    echo "unknown family $family" >&2
    usage >&2
    exit 2
    ;;
  esac
  table
done
