#!/usr/bin/env bash
# The benchmark suite: builds the benchmarks jar, runs every benchmark of docs/benchmarks.md (the floor, per-fetch
# overhead, flat fan-out, uneven trees, against Apache Iceberg Java, parsing, memory), then rewrites the figures
# between the suite markers of docs/benchmarks.md and the charts in docs/images. About two hours on 2 vCPUs; run it
# on a quiet machine (the load average during the run is sampled and reported).
#
#   benchmarks/suite.sh                 # everything
#   SUITE="flat perfetch" benchmarks/suite.sh   # some parts; the report is made of what the results directory holds
set -euo pipefail
cd "$(dirname "$0")/.."

out=${SUITE_OUT:-benchmarks/target/suite}
parts=${SUITE:-"plancall perfetch flat64 flat256 flat0 uneven iceberg parse memory read readstorage readlayers readfirst readparquet readmemory governed caller exchanges"}
mkdir -p "$out"

mvn -B -q -pl benchmarks -am -DskipTests package
jar=benchmarks/target/benchmarks.jar

# the one-minute load average every 10 s, for the report's header: a whole run starts the record afresh, a partial
# one adds to it
if [ -z "${SUITE:-}" ]; then
  : > "$out/load.txt"
  : > "$out/runs.txt"
fi
(while true; do echo "$(date +%s) $(cut -d' ' -f1 /proc/loadavg)" >> "$out/load.txt"; sleep 10; done) &
sampler=$!
trap 'kill $sampler 2>/dev/null || true' EXIT

# which part ran when, at which commit: a partial run leaves the other parts' results as they were
ran() {
  { grep -v "^$1 " "$out/runs.txt" 2>/dev/null || true; echo "$1 $(date -u +%F) $(git rev-parse --short HEAD)"; } \
    > "$out/runs.txt.new"
  mv "$out/runs.txt.new" "$out/runs.txt"
}

jmh() {
  local name=$1
  shift
  echo "=== $name: $*"
  java -jar "$jar" "$@" -rf json -rff "$out/$name.json" > "$out/$name.log" 2>&1 || { tail -40 "$out/$name.log"; exit 1; }
  ran "$name"
  grep -E '^Benchmark|^[A-Za-z]+\.[a-zA-Z]+ ' "$out/$name.log" || true
}

for part in $parts; do
  case $part in
    plancall) jmh plancall PlanCall ;;
    perfetch) jmh perfetch PerFetchOverhead -p client=socket,netty,webclient,planner -p primeOps=3000 \
                -wi 3 -w 2s -i 5 -r 2s ;;
    flat64) jmh flat64 FlatFanOut -p handles=64 -p limit=1,2,4,8,16,32,64 -prof gc ;;
    flat256) jmh flat256 FlatFanOut -p handles=256 -p limit=1,8,32,128 -prof gc ;;
    # CPU per fetch: no latency, many fetches in flight
    flat0) jmh flat0 FlatFanOut -p handles=256 -p limit=64 -p latencyMillis=0 -wi 5 -w 3s -i 5 -r 2s -prof gc ;;
    uneven) jmh uneven UnevenTree -prof gc ;;
    # one fork per combination (Iceberg reads its worker count once per JVM): never -f 0
    iceberg) jmh iceberg AgainstIceberg ;;
    parse) jmh parse ParseTasks -wi 5 -i 5 -w 2s -r 2s -prof gc ;;
    # plan and read against Iceberg (#20): the demo table at each latency and read concurrency; Iceberg's client
    # reads one task at a time, so it runs at one read concurrency only; one fork each, never -f 0. Without storage
    # latency an operation takes a second or less, and its first ten are still in the JIT's lower tiers: 15 warm-up
    # iterations; at 10 ms, one operation is 1.5 to 24 s and warms as it goes: 3.
    read)
      jmh read-ours 'PlanAndRead.ours(Planned)?$' -p table=demo -p catalogLatencyMillis=0,10 \
        -p storageLatencyMillis=0 -p readConcurrency=1,16 -wi 15 -w 2s -i 5 -r 2s -prof gc
      jmh read-iceberg 'PlanAndRead.iceberg$' -p table=demo -p catalogLatencyMillis=0,10 \
        -p storageLatencyMillis=0 -p readConcurrency=16 -wi 15 -w 2s -i 5 -r 2s -prof gc ;;
    readstorage)
      jmh readstorage-ours 'PlanAndRead.ours(Planned)?$' -p table=demo -p catalogLatencyMillis=0,10 \
        -p storageLatencyMillis=10 -p readConcurrency=1,16 -wi 3 -w 2s -i 5 -r 2s -prof gc
      jmh readstorage-iceberg 'PlanAndRead.iceberg$' -p table=demo -p catalogLatencyMillis=0,10 \
        -p storageLatencyMillis=10 -p readConcurrency=16 -wi 3 -w 2s -i 5 -r 2s -prof gc ;;
    # the layers of a plan and read without latency: planning alone (both clients), reading a plan made once (ours)
    readlayers) jmh readlayers 'PlanAndRead.(oursPlanOnly|oursReadOnly|icebergPlanOnly)$' -p table=demo \
        -p catalogLatencyMillis=0 -p storageLatencyMillis=0 -p readConcurrency=1,16 -wi 15 -w 2s -i 5 -r 2s ;;
    readfirst) jmh readfirst 'PlanAndRead.(ours|iceberg)FirstRow$' -p table=demo -p catalogLatencyMillis=10 \
        -p storageLatencyMillis=0,10 -p readConcurrency=16 -wi 3 -w 2s -i 5 -r 2s ;;
    readparquet) jmh readparquet 'PlanAndRead.(ours|oursUnordered|iceberg)$' -p table=parquet64 -p catalogLatencyMillis=0 \
        -p storageLatencyMillis=0,10 -p readConcurrency=16 -wi 3 -w 10s -i 5 -r 10s -prof gc ;;
    # a governed table's read restrictions (a row filter, three masks) against the same read unrestricted, in one run
    governed) jmh governed GovernedRead -f 2 -prof gc ;;
    # a flat plan of 64 fetches as the planner's identity, as a caller passed through, and by a planner of callers
    caller) jmh caller CallerPlan -prof gc ;;
    # the token-exchange cache under 64 concurrent callers: new users every round, and the same users back
    exchanges) jmh exchanges CallerTokenExchanges ;;
    readmemory)
      for mode in stream collect; do
        echo "=== read memory: $mode"
        java -Xmx128m -cp "$jar" io.icebergscan.planning.benchmarks.ReadMemoryFootprint "$mode" \
          > "$out/memory-read-$mode.txt" 2>&1 || true
        grep '^mode=' "$out/memory-read-$mode.txt" || true
      done
      ran readmemory ;;
    memory)
      for mode in stream collect; do
        echo "=== memory: $mode"
        java -Xmx96m -cp "$jar" io.icebergscan.planning.benchmarks.MemoryFootprint "$mode" \
          > "$out/memory-$mode.txt" 2>&1 || true
        grep '^mode=' "$out/memory-$mode.txt" || true
      done
      ran memory ;;
    *) echo "unknown part $part" >&2; exit 1 ;;
  esac
done

java -cp "$jar" io.icebergscan.planning.benchmarks.Report --docs docs/benchmarks.md --charts docs/images \
  --load "$out/load.txt" --runs "$out/runs.txt" "$out"/*.json "$out"/memory-*.txt
echo "docs/benchmarks.md and docs/images/*.png rewritten from $out"
