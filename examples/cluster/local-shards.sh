#!/usr/bin/env bash
# Run one rulebench command as N shards in N background processes, then merge them (README.md).
#
#   ./local-shards.sh N OUT RUN-ARGS...
#   ./local-shards.sh 4 results inferential -m llamacpp/model.gguf --per-group 50
#
# Shard I of N runs `rulebench run RUN-ARGS --shard I/N --store OUT/shard-I.sqlite` (its log in
# OUT/shard-I.log); when all have ended, OUT/merged.sqlite holds the one merged run. With
# HOSTS="node1 node2", shard I runs on host I (round robin) over ssh, in the same directory there,
# with its store on that host's /tmp, copied back with scp when it ends.
set -euo pipefail

if (($# < 3)); then
  echo "usage: local-shards.sh N OUT RUN-ARGS... (e.g. 4 results inferential -m MODEL)" >&2
  exit 2
fi
count=$1 out=$2
shift 2
if ! [[ $count =~ ^[1-9][0-9]*$ ]]; then
  echo "local-shards.sh: N is '$count': expected a whole number of shards, 1 or more" >&2
  exit 2
fi
read -r -a hosts <<<"${HOSTS:-}"
mkdir -p "$out"

run_shard() {
  local index=$1 store=$out/shard-$1.sqlite log=$out/shard-$1.log
  shift
  if ((${#hosts[@]} == 0)); then
    rulebench run "$@" --shard "$index/$count" --store "$store" >"$log" 2>&1
    return
  fi
  local host=${hosts[$(((index - 1) % ${#hosts[@]}))]}
  local remote=/tmp/rulebench-shard-$index-$$.sqlite status=0
  # shellcheck disable=SC2029  # the command is built here, on purpose, and run there
  ssh "$host" "cd $(printf %q "$PWD") && rulebench run $(printf '%q ' "$@") \
    --shard $index/$count --store $remote" >"$log" 2>&1 || status=$?
  scp -q "$host:$remote" "$store" >>"$log" 2>&1 || true
  return "$status"
}

pids=()
for ((index = 1; index <= count; index++)); do
  run_shard "$index" "$@" &
  pids+=($!)
done

failed=0
for index in "${!pids[@]}"; do
  if ! wait "${pids[$index]}"; then
    echo "local-shards.sh: shard $((index + 1))/$count failed; see $out/shard-$((index + 1)).log" >&2
    failed=1
  fi
done

shopt -s nullglob
stores=("$out"/shard-*.sqlite)
if ((${#stores[@]} == 0)); then
  echo "local-shards.sh: no shard wrote a store; see $out/shard-*.log" >&2
  exit 1
fi
rulebench runs merge "${stores[@]}" --into "$out/merged.sqlite"
rulebench runs list --store "$out/merged.sqlite"
exit "$failed"
