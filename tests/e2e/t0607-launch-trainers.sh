#!/bin/sh
# --trainer_launcher: Python trainers through torchrun, or started directly
# with the variables torchrun gives them (Debian 12's torch 1.13 cannot run
# torchrun on its Python 3.11), and auto choosing per host with a probe.
# A stand-in torch (tests/helpers/faketorch) plays torchrun; a host whose
# copy is marked BROKEN fails the way torch 1.13 does. With a real torch
# installed, the trainers also open a gloo process group across the hosts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"
. "$(dirname "$0")/launch_lib.sh"

command -v python3 >/dev/null || { echo "# skipped: no python3"; finish; }
lt_setup 2 metis2-hops2
h0=$(host_ip 0)
h1=$(host_ip 1)
for i in 0 1; do
    cp -r "$TOP/tests/helpers/faketorch" "$(host_dir "$i")/"
    cp "$TOP/tests/helpers/dgl_trainer.py" "$(host_dir "$i")/"
done
FAKE="PYTHONPATH=$WS/faketorch"

# run_mode NAME ARGS...: launch 2 trainers per host into $TMP/NAME
run_mode() {
    _name=$1
    shift
    mkdir -p "$TMP/$_name"
    lt_launch --num_trainers 2 --num_servers 1 --master_port "$LT_PORT" \
        "$@" "python3 dgl_trainer.py $TMP/$_name --epochs 1"
}

# env_of NAME RANK: rank's variables, less the one that differs by design
# (torchrun's workers use the agent's store, direct ones rank 0's own)
env_of() {
    python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["env"]
e.pop("TORCHELASTIC_USE_AGENT_STORE", None)
print("\n".join("%s=%s" % kv for kv in sorted(e.items())))' \
        "$TMP/$1/rank-$2.json" 2>/dev/null
}

expect_ok "auto on hosts whose torchrun works" run_mode auto \
    --extra_envs "$FAKE"
expect_stderr "$h0: trainers through torch.distributed.run" "host 0 probed"
expect_stderr "$h1: trainers through torch.distributed.run" "host 1 probed"
expect_stdout "^\[$h1:trainer:1\] trainer rank 3 of 4 up$" \
    "one torchrun per host, its workers' output prefixed with the node"
expect_eq "$(grep -c '^\[.*:trainer:[01]\] trainer rank [0-3] of 4 up$' "$OUT")" 4 \
    "four workers under two torchruns"
expect_ok "torchrun forced" run_mode torchrun --extra_envs "$FAKE" \
    --trainer_launcher torchrun
if grep -q "probe\|torch.distributed.run cannot" "$ERR"; then
    fail "no probe when torchrun is forced"
else pass "no probe when torchrun is forced"; fi
expect_ok "direct" run_mode direct --extra_envs "$FAKE" \
    --trainer_launcher direct
expect_stdout "^\[$h1:trainer:3\] trainer rank 3 of 4 up$" \
    "direct: one process per trainer, prefixed with its rank"
for r in 0 1 2 3; do
    a=$(env_of torchrun "$r")
    [ -n "$a" ] || { fail "rank $r recorded under torchrun"; continue; }
    expect_eq "$(env_of direct "$r")" "$a" \
        "rank $r: direct gives exactly torchrun's variables"
    expect_eq "$(env_of auto "$r")" "$a" "rank $r: auto as torchrun"
done
expect_eq "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["env"]["TORCHELASTIC_USE_AGENT_STORE"])' \
    "$TMP/direct/rank-0.json")" False "direct: rank 0 hosts the store"

# host 1's torch is torch 1.13 on Python 3.11: auto falls back there only
touch "$(host_dir 1)/faketorch/torch/distributed/elastic/multiprocessing/BROKEN"
expect_fail 1 "torchrun forced on the broken host fails" run_mode broken \
    --extra_envs "$FAKE" --trainer_launcher torchrun
expect_stderr "AttributeError: 'NoneType' object has no attribute 'get'" \
    "torch's own error comes back"
lt_check_clean "after the failed torchrun"
expect_ok "auto with one broken host" run_mode mixed --extra_envs "$FAKE"
expect_stderr "$h0: trainers through torch.distributed.run" \
    "host 0 keeps torchrun"
expect_stderr "$h1: torch.distributed.run cannot run here \(AttributeError: 'NoneType' object has no attribute 'get'\); starting 2 trainers directly" \
    "host 1 falls back and says why"
for r in 0 1 2 3; do
    expect_eq "$(env_of mixed "$r")" "$(env_of torchrun "$r")" \
        "mixed: rank $r has torchrun's variables"
done
lt_check_clean "after the mixed job"

# --local_rank_arg: the old torch.distributed.launch convention
expect_ok "direct with --local_rank" run_mode lr --extra_envs "$FAKE" \
    --trainer_launcher direct --local_rank_arg
expect_eq "$(python3 -c 'import json, sys
print(" ".join(json.load(open(sys.argv[1]))["args"]))' "$TMP/lr/rank-3.json")" \
    "--local_rank=1 $TMP/lr --epochs 1" "--local_rank=N right after the script"

# a failing trainer: exit 1, the failure named, nothing left behind
mkdir -p "$TMP/fail"
expect_fail 1 "a direct trainer that fails" lt_launch --num_trainers 2 \
    --num_servers 1 --trainer_launcher direct --extra_envs "$FAKE" \
    "python3 dgl_trainer.py $TMP/fail --fail-rank 2"
expect_stderr "trainer rank 2 fails" "its stderr comes back"
expect_stderr "trainer.*2.*(exit|exited).*3|exit status 3|exited with 3" \
    "the launcher names the failed trainer"
lt_check_clean "after a failed direct trainer"
expect_fail 2 "a bad --trainer_launcher" lt_launch --num_trainers 1 \
    --num_servers 1 --trainer_launcher sometimes "python3 x.py"
expect_stderr "expected auto, torchrun or direct" "bad value explained"

# A real torch (Debian's python3-torch): the probe decides on its own, and
# the trainers open a gloo group across the two hosts.
if host_ssh 0 "python3 -c 'import torch.distributed as d; d.init_process_group'" \
    >/dev/null 2>&1; then
    rm -f "$(host_dir 1)/faketorch/torch/distributed/elastic/multiprocessing/BROKEN"
    expect_ok "real torch: auto, gloo across hosts" run_mode real \
        --extra_envs GLOO_SOCKET_IFNAME=lo
    expect_stderr "$h0: (trainers through torch.distributed.run|torch.distributed.run cannot run here)" \
        "the probe's decision is said"
    for r in 0 1 2 3; do
        expect_eq "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["gloo"])' "$TMP/real/rank-$r.json" 2>&1)" \
            10.0 "rank $r: all_reduce over 4 ranks gives 1+2+3+4"
    done
    lt_check_clean "after the gloo job"
else
    echo "# no torch with process groups: gloo part skipped"
fi
finish
