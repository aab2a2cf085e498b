#!/usr/bin/env bash
# Join the shard stores slurm-array.sh copied to SHARED_DIR into one store (README.md here).
#
#   sbatch --dependency=afterok:"$jid" merge.sh    # after the array; or run it by hand
#
# The merge runs once, on one node's local disk, and the result is copied back: no two processes
# ever write one SQLite file over the shared filesystem. Merging again (a shard rerun later) adds
# only what is new. A missing shard makes the merged run `partial`; `runs show` names it.
#
#SBATCH --job-name=rulebench-merge
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --time=00:30:00
#SBATCH --output=rulebench-merge-%j.out
set -euo pipefail

SHARED_DIR=${SHARED_DIR:-$PWD/rulebench-shards}
MERGED=${MERGED:-$SHARED_DIR/merged.sqlite}
LOCAL_DISK=${LOCAL_DISK:-${SLURM_TMPDIR:-${TMPDIR:-/tmp}}}
local_store=$LOCAL_DISK/merged-${SLURM_JOB_ID:-$$}.sqlite

shopt -s nullglob
stores=("$SHARED_DIR"/shard-*.sqlite)
if ((${#stores[@]} == 0)); then
  echo "merge.sh: no shard-*.sqlite in $SHARED_DIR" >&2
  exit 1
fi

mkdir -p "$LOCAL_DISK"
rm -f "$local_store"
if [[ -e $MERGED ]]; then
  cp "$MERGED" "$local_store"
fi
rulebench runs merge "${stores[@]}" --into "$local_store"
cp "$local_store" "$MERGED.partial"
mv -f "$MERGED.partial" "$MERGED"
rm -f "$local_store" "$local_store-wal" "$local_store-shm"
rulebench runs list --store "$MERGED"
