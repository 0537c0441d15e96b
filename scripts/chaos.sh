#!/usr/bin/env bash
# Chaos as a user runs it: trains once without faults, then once per seed
# 1..N with `tact train --chaos SEED` (random kills, drops, pauses and
# corrupted checkpoints on a local cluster of 1 ps and 2 workers, the
# default optimizer, a checkpoint every 20 steps), and prints a line per
# seed and a summary: faults injected, recoveries, steps lost, the worst
# recovery time, and whether the variables equal the run without faults.
# Every run has a deadline; exits 1 if any seed did not end clean.
#
#   scripts/chaos.sh N [FAULTS_PER_SEED] [-- more tact train flags]
#
# Builds first if build/apps/tact is missing (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=10 faults=3
if [ $# -gt 0 ] && [ "$1" != "--" ]; then seeds=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then faults=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" = "--" ]; then shift; fi
tact=build/apps/tact
[ -x "$tact" ] || scripts/build.sh > /dev/null
# A run that has not ended by then hangs, which is a failure of its own.
deadline=${CHAOS_RUN_TIMEOUT:-600}
# The defaults, each left out where the flags after -- give it (tact train
# takes a flag once): `scripts/chaos.sh 4 -- --model cnn --max-steps 60`.
defaults=(--model mlp --ps 1 --workers 2 --max-steps 120 --train-limit 12000 --test-limit 500
          --threads 1 --checkpoint-every-steps 20)
train=()
for ((i = 0; i < ${#defaults[@]}; i += 2)); do
  [[ " $* " == *" ${defaults[i]} "* || " $* " == *" ${defaults[i]}="* ]] ||
    train+=("${defaults[i]}" "${defaults[i + 1]}")
done
train+=(--json "$@")
dir=$(mktemp -d -t tact_chaos_XXXXXX)
trap 'rm -rf "$dir"' EXIT

# The value of a field of the JSON line $2 (numbers and strings alike).
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p" <<< "$2"; }

clean=$(timeout "$deadline" "$tact" train "${train[@]}" --checkpoint-dir "$dir/clean" 2> "$dir/clean.err" | tail -1) || {
  echo "chaos: the run without faults failed:"; cat "$dir/clean.err"; exit 1; }
want=$(field variables_fingerprint "$clean")
echo "chaos: the run without faults ends with variables $want"

ok=0 bad=0 total_faults=0 total_recoveries=0 total_lost=0 worst=0
for seed in $(seq 1 "$seeds"); do
  rc=0
  line=$(timeout "$deadline" "$tact" train "${train[@]}" --checkpoint-dir "$dir/$seed" \
           --chaos "$seed" --chaos-faults "$faults" 2> "$dir/$seed.err" | tail -1) || rc=$?
  if [ "$rc" -ne 0 ]; then
    bad=$((bad + 1))
    why=$([ "$rc" -eq 124 ] && echo "hung past ${deadline} s" || tail -1 "$dir/$seed.err")
    echo "seed $seed: FAILED ($why)"
    continue
  fi
  f=$(field faults_injected "$line") r=$(field recoveries "$line") l=$(field steps_lost "$line")
  ms=$(field recovery_ms_max "$line") got=$(field variables_fingerprint "$line")
  ms=${ms%.*}
  total_faults=$((total_faults + f)) total_recoveries=$((total_recoveries + r)) total_lost=$((total_lost + l))
  [ "$ms" -gt "$worst" ] && worst=$ms
  if [ "$got" = "$want" ]; then
    ok=$((ok + 1)) verdict="the variables of the run without faults"
  else
    bad=$((bad + 1)) verdict="DIFFERENT variables ($got)"
  fi
  echo "seed $seed: $f faults, $r recoveries, $l steps lost, worst recovery $ms ms; $verdict"
done
echo "chaos: $seeds seeds, $ok clean, $bad failed; $total_faults faults, $total_recoveries recoveries," \
     "$total_lost steps lost, worst recovery $worst ms"
[ "$bad" -eq 0 ]
