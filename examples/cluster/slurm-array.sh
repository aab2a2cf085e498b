#!/usr/bin/env bash
# One shard of a rulebench run per Slurm array task (README.md in this folder explains it).
#
#   jid=$(sbatch --parsable --array=0-3 slurm-array.sh)
#   sbatch --dependency=afterok:"$jid" merge.sh
#
# Every task runs the same command; `--shard auto` reads SLURM_ARRAY_TASK_ID and
# SLURM_ARRAY_TASK_COUNT, so the array's size is the number of shards. The store is written on
# the node's local disk (SQLite over NFS is a locking hazard) and copied to SHARED_DIR at the end.
# Outside Slurm the body runs as it is: `SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=2
# MODEL=scripted/echo bash slurm-array.sh` runs shard 1 of 2 on this machine.
#
#SBATCH --job-name=rulebench-shard
#SBATCH --array=0-3
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=8
#SBATCH --gres=gpu:1
#SBATCH --time=04:00:00
#SBATCH --output=rulebench-shard-%A_%a.out
set -euo pipefail

# What every shard runs (the same on all of them: shards of different specs do not merge).
SERVER=${SERVER:-none}
# none:   a local backend on this node (hf on its GPU, llama.cpp): MODEL=hf/<model>
# node:   start one vLLM server on this node, wait until it answers, run against it
# shared: run against a server everyone shares, SERVER_URL=http://host:8000/v1
VLLM_MODEL=${VLLM_MODEL:-Qwen/Qwen2.5-7B-Instruct}
if [[ $SERVER == none ]]; then
  MODEL=${MODEL:-hf/HuggingFaceTB/SmolLM2-1.7B-Instruct}
else
  MODEL=${MODEL:-openai-api/vllm/$VLLM_MODEL}
fi
TASK_ARGS=${TASK_ARGS:-inferential --per-group 100}
# Extra options of the run, e.g. MODEL_ARGS="-M device=cuda -M max_batch_size=16" for hf.
MODEL_ARGS=${MODEL_ARGS:-}

# Where stores go: the node's own disk while running, the shared filesystem at the end.
SHARED_DIR=${SHARED_DIR:-$PWD/rulebench-shards}
LOCAL_DISK=${LOCAL_DISK:-${SLURM_TMPDIR:-${TMPDIR:-/tmp}}}
TASK_ID=${SLURM_ARRAY_TASK_ID:?not an array task: submit with sbatch --array, or set SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT}
: "${SLURM_ARRAY_TASK_COUNT:?set SLURM_ARRAY_TASK_COUNT (the number of shards) with SLURM_ARRAY_TASK_ID}"
STORE=$LOCAL_DISK/shard-$TASK_ID.sqlite
SHARED_STORE=$SHARED_DIR/shard-$TASK_ID.sqlite

# The node-local vLLM server (SERVER=node): its port, how long to wait for it, how often to ask.
VLLM_PORT=${VLLM_PORT:-$((8000 + TASK_ID % 1000))}
VLLM_ARGS=${VLLM_ARGS:-}
HEALTH_TIMEOUT_S=${HEALTH_TIMEOUT_S:-1800}
HEALTH_POLL_S=${HEALTH_POLL_S:-10}

mkdir -p "$SHARED_DIR" "$LOCAL_DISK"
server_pid=""

# Copied with SQLite's backup, not cp: writes a killed run left in the store's -wal file come too.
copy_store() {
  "${PYTHON:-python3}" -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' "$1" "$2"
}

# Copy the store to the shared filesystem whatever happened (a failed or cut shard merges as
# partial and names itself), under a temporary name first so the merge never reads half a copy.
finish() {
  local status=$?
  if [[ -n $server_pid ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [[ -e $STORE ]]; then
    rm -f "$SHARED_STORE.partial"
    copy_store "$STORE" "$SHARED_STORE.partial"
    mv -f "$SHARED_STORE.partial" "$SHARED_STORE"
  fi
  exit "$status"
}
trap finish EXIT

# A requeued task starts from what it copied out last time: finished items come from the cache.
if [[ -e $SHARED_STORE && ! -e $STORE ]]; then
  cp "$SHARED_STORE" "$STORE"
fi

wait_for_server() {
  local url=$1 log=$2 deadline=$((SECONDS + HEALTH_TIMEOUT_S))
  until curl -sf -o /dev/null "$url/models"; do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      echo "slurm-array.sh: the vLLM server exited before it answered; its log: $log" >&2
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      echo "slurm-array.sh: no answer from $url/models after ${HEALTH_TIMEOUT_S}s; log: $log" >&2
      exit 1
    fi
    sleep "$HEALTH_POLL_S"
  done
}

base_url=()
case $SERVER in
  none) ;;
  node)
    log=$LOCAL_DISK/vllm-$TASK_ID.log
    # shellcheck disable=SC2086  # VLLM_ARGS is a list of options
    vllm serve "$VLLM_MODEL" --host 127.0.0.1 --port "$VLLM_PORT" $VLLM_ARGS >"$log" 2>&1 &
    server_pid=$!
    wait_for_server "http://127.0.0.1:$VLLM_PORT/v1" "$log"
    base_url=(--base-url "http://127.0.0.1:$VLLM_PORT/v1")
    ;;
  shared) base_url=(--base-url "${SERVER_URL:?SERVER=shared needs SERVER_URL=http://host:port/v1}") ;;
  *)
    echo "slurm-array.sh: SERVER is '$SERVER': expected none, node or shared" >&2
    exit 2
    ;;
esac

read -r -a task <<<"$TASK_ARGS"
read -r -a model_args <<<"$MODEL_ARGS"
rulebench run "${task[@]}" -m "$MODEL" "${model_args[@]}" "${base_url[@]}" \
  --shard auto --store "$STORE"
