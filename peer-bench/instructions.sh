#!/usr/bin/env bash
# Instructions per call of each peer-bench path, counted by callgrind (valgrind): the same count
# for the same binary and input whatever else the machine is doing. Each path runs twice, 1 000
# and 11 000 calls after the same setup; the difference over 10 000 is one call's count.
# Usage: ./instructions.sh [PATH ...]   (default: every path)
set -euo pipefail
cd "$(dirname "$0")"
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
cargo build --release --quiet --bin instructions
binary=${CARGO_TARGET_DIR:-target}/release/instructions
paths=("$@")
if [ ${#paths[@]} -eq 0 ]; then
    # The list the binary prints in its usage line.
    mapfile -t paths < <("$binary" 2>&1 | sed -n 's/.*one of: \(.*\))/\1/p' | tr -d ' ' | tr ',' '\n')
fi
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" "$1" "$2" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for path in "${paths[@]}"; do
    low=$(count "$path" 1000)
    high=$(count "$path" 11000)
    [ -n "$low" ] && [ -n "$high" ] || { echo "$path: no count (is it a path?)" >&2; exit 1; }
    printf '%-24s %8d instructions per call\n' "$path" $(( (high - low) / 10000 ))
done
