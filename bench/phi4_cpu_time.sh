#!/bin/bash
# phi^4 CPU time per hit of the sweeps alone, for a loaded machine where wall clocks
# spread (doc/PERFORMANCE.md, "phi^4 on the CPU, one hit counted"): the user + system time
# of a run of 2S sweeps minus that of a run of S sweeps (the same start-up, warm-up and
# measurement), over the hits of the extra sweeps. Alternates every program given, ROUNDS
# times; 3D 128^3 float, nhit 8, the seed code's default action (mu2 0.25, g 0,
# 1/Lambda 2, proposal half-width 0.5).
#
#   [NLOC=K] bench/phi4_cpu_time.sh THREADS ROUNDS S NAME=PROGRAM[@VAR=VALUE]...
#
# A PROGRAM ending in latmc-bench runs latmc-bench (which sweeps twice: warm-up and timed)
# with nloc K (default 1), in the environment VAR=VALUE where given (e.g.
# chunks=latmc-bench@LATMC_CPU_PHI4_CHUNK=64x16x16); any other runs as the seed code's
# binary (github ujhpc/phi4, `--n-x 128 ... -t S`; nloc 1 only). After the rounds, the
# median of each NAME's rounds.
set -eu
T=$1; N=$2; S=$3; shift 3
K=${NLOC:-1}
V=$((128 * 128 * 128 * 8 * K))
results=$(mktemp)
tfile=$(mktemp)
trap 'rm -f "$tfile" "$results"' EXIT
cpu() { /usr/bin/time -o "$tfile" -f "%U %S" "$@" >/dev/null 2>&1; awk '{print $1 + $2}' "$tfile"; }
run() { # program environment sweeps
    case $1 in
    *latmc-bench) cpu env $2 "$1" --model phi4 --dim 3 -L 128 --precision float --nhit 8 \
        --nloc "$K" --mu2 0.25 --g 0 --lambda 0.5 --epsilon 0.5 --threads "$T" --repeat 1 \
        --timed sweeps --sweeps "$3" ;;
    *) cpu "$1" --n-x 128 --n-y 128 --n-z 128 -t "$3" --threads "$T" --time ;;
    esac
}
for _ in $(seq "$N"); do
    for named in "$@"; do
        name=${named%%=*}; prog=${named#*=}
        envs=; case $prog in *@*) envs=${prog#*@}; prog=${prog%%@*} ;; esac
        k=1; case $prog in *latmc-bench) k=2 ;; esac
        a=$(run "$prog" "$envs" "$S"); b=$(run "$prog" "$envs" $((2 * S)))
        awk -v n="$name" -v a="$a" -v b="$b" -v k="$k" -v s="$S" -v v="$V" -v t="$T" \
            'BEGIN { printf "%s threads %d: %.3f ns of CPU per hit\n", n, t, (b - a) * 1e9 / (k * s * v) }' |
            tee -a "$results"
    done
done
for named in "$@"; do
    name=${named%%=*}
    grep "^$name threads" "$results" | awk '{ print $4 }' | sort -g |
        awk -v n="$name" -v t="$T" -v k="$K" '{ v[NR] = $1 } END {
            m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "median %s threads %d nloc %d: %.3f ns of CPU per hit (%d rounds, %.3f .. %.3f)\n",
                   n, t, k, m, NR, v[1], v[NR] }'
done
