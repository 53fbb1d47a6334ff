#!/usr/bin/env bash
# How well a tree run uses a second thread: `urlsift lint` on a docs tree
# with -j1 and -j2, RUNS runs each in ROUNDS rounds. Within a round the
# two settings alternate run by run (j1, j2, j1, j2, ...), so that drift in
# the machine's speed (shared VMs: steal time, other jobs) hits both
# alike; running one setting's block after the other's (as hyperfine
# does) gave ratios from 0.57 to 0.83 on the same build. Prints, per
# round, the median wall time and CPU time (user + system, from wait4) of
# each setting and the ratio of the wall medians -j2 / -j1 (issue 4's
# target is at most 0.6).
#
#   bash benches/threads.sh [TREE]   (default ../shared/corpus/docs, or corpus/)
#
# RUNS (default 40) and ROUNDS (default 3) set the counts. BASELINE=path
# to another urlsift binary measures it too, alternating with this build,
# so that the two can be compared in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=${1:-}
if [ -z "$tree" ]; then
  if [ -d ../shared/corpus/docs ]; then tree=../shared/corpus/docs; else tree=corpus; fi
fi
cargo build --release --quiet
bin=$PWD/target/release/urlsift
echo "tree: $tree  runs: ${RUNS:-40} x ${ROUNDS:-3}  load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$bin" "$tree" "${RUNS:-40}" "${ROUNDS:-3}" "${BASELINE:-}" <<'PY'
import os, statistics, sys, time

binary, tree, runs, rounds, baseline = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
builds = [("", binary)] + ([("baseline ", baseline)] if baseline else [])
cmds = [(f"{name}-j{j}", [b, "lint", f"-j{j}", tree]) for name, b in builds for j in (1, 2)]
null = os.open(os.devnull, os.O_WRONLY)

def run(argv):
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
    _, status, usage = os.wait4(pid, 0)
    # lint exits 1 when it finds something; 2 and above are failures.
    if os.waitstatus_to_exitcode(status) > 1:
        sys.exit(f"{' '.join(argv)} failed")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime

for r in range(1, rounds + 1):
    for _, argv in cmds:  # warm-up
        run(argv)
    seen = {name: [] for name, _ in cmds}
    for _ in range(runs):
        for name, argv in cmds:
            seen[name].append(run(argv))
    wall = {n: statistics.median(w for w, _ in v) * 1000 for n, v in seen.items()}
    cpu = {n: statistics.median(c for _, c in v) * 1000 for n, v in seen.items()}
    parts = [f"{n} {wall[n]:.1f} ms (cpu {cpu[n]:.1f})" for n, _ in cmds]
    ratios = [f"{name}ratio {wall[name + '-j2'] / wall[name + '-j1']:.3f}" for name, _ in builds]
    print(f"round {r}: " + ", ".join(parts) + "; " + ", ".join(ratios))
PY
