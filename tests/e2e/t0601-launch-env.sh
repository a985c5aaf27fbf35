#!/bin/sh
# dglpart launch on two simulated hosts: every server and trainer gets
# exactly DGL's environment (tools/launch.py's variables and values), a
# Python command is rewritten to torch.distributed.run, output comes back
# prefixed [host:role:rank] and lands in --log_dir, and nothing is left.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"
. "$(dirname "$0")/launch_lib.sh"

lt_setup 2 metis2-hops2
at_exit lt_kill_recorded
h0=$(host_ip 0)
h1=$(host_ip 1)

# The DGL variables (and torchrun's) a record holds, sorted, one a line.
dgl_env() {
    sed -n 's/^env \(DGL_[A-Z_]*=.*\)/\1/p; s/^env \(OMP_NUM_THREADS=.*\)/\1/p
            s/^env \(RANK=.*\)/\1/p; s/^env \(LOCAL_RANK=.*\)/\1/p
            s/^env \(WORLD_SIZE=.*\)/\1/p; s/^env \(LOCAL_WORLD_SIZE=.*\)/\1/p
            s/^env \(GROUP_RANK=.*\)/\1/p; s/^env \(MASTER_[A-Z]*=.*\)/\1/p' \
        "$1" | sort
}

# ---- a C-style trainer: T processes per host with torchrun's variables
# (trainers wait for the servers, as DGL's do: on a busy machine a server
# slow to start would otherwise be stopped before it ran)
expect_ok "launch 2 servers and 2 trainers per host" \
    lt_launch --num_trainers 2 --num_servers 2 --num_samplers 1 \
    --num_server_threads 3 --num_omp_threads 2 --graph_format csr,csc \
    --master_port 29500 --log_dir "$TMP/logs" \
    "$PROBE --record $LT_REC --dgl-bind --trainer-port $((LT_PORT + 100)) --await 4 --sleep 0.3"
expect_eq "$(ls "$LT_REC" | grep -c '^server-')" 4 "4 servers ran"
expect_eq "$(ls "$LT_REC" | grep -c '^trainer-')" 4 "4 trainers ran"

for s in 0 1 2 3; do
    f=$(ls "$LT_REC"/server-$s-*.txt 2>/dev/null | head -n 1)
    [ -n "$f" ] || { fail "server $s recorded"; continue; }
    cat >"$TMP/want" <<EOF
DGL_CONF_PATH=data/cora.json
DGL_GRAPH_FORMAT=csr,csc
DGL_IP_CONFIG=ip_config.txt
DGL_NUM_CLIENT=8
DGL_NUM_SAMPLER=1
DGL_NUM_SERVER=2
DGL_ROLE=server
DGL_SERVER_ID=$s
OMP_NUM_THREADS=3
EOF
    dgl_env "$f" >"$TMP/got"
    cmp_files "$TMP/got" "$TMP/want" "server $s has exactly DGL's server environment"
    expect_eq "$(sed -n 's/^cwd //p' "$f")" "$WS" "server $s runs in the workspace"
done
for r in 0 1 2 3; do
    f=$(ls "$LT_REC"/trainer-$r-*.txt 2>/dev/null | head -n 1)
    [ -n "$f" ] || { fail "trainer $r recorded"; continue; }
    cat >"$TMP/want" <<EOF
DGL_CONF_PATH=data/cora.json
DGL_DIST_MODE=distributed
DGL_GRAPH_FORMAT=csr,csc
DGL_GROUP_ID=0
DGL_IP_CONFIG=ip_config.txt
DGL_NUM_CLIENT=8
DGL_NUM_SAMPLER=1
DGL_NUM_SERVER=2
DGL_ROLE=client
GROUP_RANK=$((r / 2))
LOCAL_RANK=$((r % 2))
LOCAL_WORLD_SIZE=2
MASTER_ADDR=$h0
MASTER_PORT=29500
OMP_NUM_THREADS=2
RANK=$r
WORLD_SIZE=4
EOF
    dgl_env "$f" >"$TMP/got"
    cmp_files "$TMP/got" "$TMP/want" "trainer $r has DGL's client and torchrun's variables"
done
# Each process ran on the host its rank belongs to (it bound that address).
expect_stdout "^\[$h0:server:0\] envprobe server 0 up$" "server 0 output prefixed with host 0"
expect_stdout "^\[$h1:server:3\] envprobe server 3 up$" "server 3 output prefixed with host 1"
expect_stdout "^\[$h1:trainer:2\] envprobe trainer 2 up$" "trainer 2 output prefixed with host 1"
expect_stderr "^\[$h0:trainer:1\] envprobe trainer 1 on stderr$" "stderr stays on stderr, prefixed"
if grep -q 'dglpart-' "$OUT" "$ERR"; then fail "wrapper markers are not shown"
else pass "wrapper markers are not shown"; fi
expect_eq "$(ls "$TMP/logs" | tr '\n' ' ')" \
    "$h0-server-0.log $h0-server-1.log $h0-trainer-0.log $h0-trainer-1.log $h1-server-2.log $h1-server-3.log $h1-trainer-2.log $h1-trainer-3.log " \
    "one log per process"
expect_eq "$(sort "$TMP/logs/$h1-trainer-3.log" | tr '\n' '|')" \
    "envprobe trainer 3 on stderr|envprobe trainer 3 up|" "a log holds the process's own lines"
lt_check_clean "after the trainers finished"

# ---- a Python command: one torchrun per host; --extra_envs are expanded
# by the remote shell (PATH finds the fake python3 of the workspace).
rm -f "$LT_REC"/*
for i in 0 1; do
    mkdir -p "$(host_dir "$i")/bin"
    printf '#!/bin/sh\nexec %s --record %s --dgl-bind --await 2 "$@"\n' "$PROBE" "$LT_REC" \
        >"$(host_dir "$i")/bin/python3"
    chmod +x "$(host_dir "$i")/bin/python3"
done
expect_ok "launch a python command" \
    lt_launch --num_trainers 3 --num_servers 1 --trainer_launcher torchrun \
    --extra_envs "PATH=$WS/bin:\$PATH" \
    "PYLAUNCH=yes it's" -- "python3 train.py --graph_name cora --ip_config ip_config.txt"
expect_eq "$(ls "$LT_REC" | grep -c '^server-')" 2 "one server per host"
expect_eq "$(ls "$LT_REC" | grep -c '^trainer-')" 2 "one torchrun per host"
for r in 0 1; do
    f=$(ls "$LT_REC"/trainer--1-*.txt | xargs grep -l "^arg [0-9]* --node_rank=$r$" | head -n 1)
    [ -n "$f" ] || { fail "torchrun of node $r recorded"; continue; }
    expect_eq "$(sed -n 's/^arg [1-9][0-9]* //p' "$f" | tr '\n' ' ')" \
        "--record $LT_REC --dgl-bind --await 2 -m torch.distributed.run --nproc_per_node=3 --nnodes=2 --node_rank=$r --master_addr=$h0 --master_port=$(sed -n 's/^arg [0-9]* --master_port=//p' "$f") train.py --graph_name cora --ip_config ip_config.txt " \
        "node $r: python3 rewritten to torch.distributed.run"
    expect_eq "$(grep -c '^env RANK=' "$f")" 0 "node $r: torchrun sets RANK itself"
    expect_eq "$(grep '^env DGL_ROLE=' "$f")" "env DGL_ROLE=client" "node $r: client role"
    expect_eq "$(grep '^env PYLAUNCH=' "$f")" "env PYLAUNCH=yes it's" "node $r: extra env with a quote"
done
f=$(ls "$LT_REC"/server-1-*.txt | head -n 1)
expect_eq "$(sed -n 's/^arg [1-9][0-9]* //p' "$f" | tr '\n' ' ')" \
    "--record $LT_REC --dgl-bind --await 2 train.py --graph_name cora --ip_config ip_config.txt " \
    "servers run the command unchanged"
expect_eq "$(sed -n 's/^env PATH=//p' "$f" | cut -d: -f1)" "$WS/bin" "extra PATH expanded remotely"
expect_stdout "^\[$h1:trainer:1\] envprobe" "torchrun output prefixed with its node rank"
lt_check_clean "after a python job"

# ---- more processes per host than one ssh connection carries (8)
rm -f "$LT_REC"/*
expect_ok "launch 1 server and 9 trainers per host" \
    lt_launch --num_trainers 9 --num_servers 1 "$PROBE --record $LT_REC --dgl-bind"
expect_eq "$(ls "$LT_REC" | grep -c '^trainer-')" 18 "all 18 trainers ran"
expect_eq "$(grep -c "^\[$h1:trainer:17\] envprobe trainer 17 up$" "$OUT")" 1 \
    "the last trainer's output came back"
lt_check_clean "after 10 processes per host"

# ---- --ssh_port and --ssh_username reach ssh (a config without them)
grep -v -e '^ *Port ' -e '^ *User ' "$HOSTS_CFG" >"$TMP/ssh_cfg2"
expect_ok "--ssh_port and --ssh_username" \
    $DGLPART launch --workspace "$WS" --ip_config ip_config.txt \
    --part_config data/cora.json --ssh_opts "-F $TMP/ssh_cfg2" \
    --ssh_port "$HOSTS_PORT" --ssh_username "$HOSTS_USER" --grace 0.5 \
    --num_trainers 1 --num_servers 1 "echo \"it's \$(id -un) on \$SSH_CONNECTION\""
expect_stdout "^\[$h1:trainer:1\] it's $HOSTS_USER on .* $h1 $HOSTS_PORT\$" \
    "the trainer ran through that port as that user"
expect_fail 1 "a wrong --ssh_port fails" \
    $DGLPART launch --workspace "$WS" --ip_config ip_config.txt \
    --part_config data/cora.json --ssh_opts "-F $TMP/ssh_cfg2" \
    --ssh_port 1 --grace 0.5 --num_trainers 1 --num_servers 1 "true"
finish
