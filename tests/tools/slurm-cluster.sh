# SPDX-License-Identifier: LGPL-2.1-or-later
# A real single-node Slurm cluster on 127.0.0.1 for tests, sourced:
#
#   source tests/tools/slurm-cluster.sh
#   slurm_start DIR CPUS     # munged, slurmctld, slurmd; exports SLURM_CONF
#   ...sbatch, squeue, sacct, scancel...
#   slurm_stop               # cancels the jobs, stops the three daemons
#
# Everything lives in DIR: a generated munge key and slurm.conf (free ports,
# proctrack/linuxproc and task/none, so no cgroups are needed; no slurmdbd:
# sacct reads the job completion log, jobcomp/filetxt).  The daemons run as
# root (Debian's slurm-wlm and munge).  slurm_stop stops only what
# slurm_start started, by the PIDs it recorded.
slurm_dir=
slurm_pids=()

slurm_fail () { echo "slurm-cluster: $*" >&2; return 1; }

# Two free TCP ports on 127.0.0.1.
slurm_free_ports () {
  python3 - <<'PY'
import socket
socks = []
for _ in range(2):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

slurm_write_conf () {
  local cpus=$1 ports
  read -r -a ports <<< "$(slurm_free_ports)"
  cat > "$slurm_dir/slurm.conf" <<CONF
ClusterName=clvtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$slurm_dir/munge.socket
CredType=cred/munge
StateSaveLocation=$slurm_dir/state
SlurmdSpoolDir=$slurm_dir/spool
SlurmctldPidFile=$slurm_dir/slurmctld.pid
SlurmdPidFile=$slurm_dir/slurmd.pid
SlurmctldLogFile=$slurm_dir/slurmctld.log
SlurmdLogFile=$slurm_dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobCompType=jobcomp/filetxt
JobCompLoc=$slurm_dir/jobcomp.txt
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
KillWait=5
SlurmdParameters=config_overrides
NodeName=clvnode NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$cpus State=UNKNOWN
PartitionName=clvtest Nodes=clvnode Default=YES MaxTime=INFINITE State=UP
CONF
}

# The PID in file $1, waiting up to 10 s for the daemon to write it.
slurm_pid_of () {
  local i
  for i in $(seq 100); do
    [ -s "$1" ] && { cat "$1"; return 0; }
    sleep 0.1
  done
  slurm_fail "no PID in $1"
}

slurm_start () {
  slurm_dir=$1
  local cpus=${2:-4} i
  for d in munged slurmctld slurmd; do
    command -v "$d" >/dev/null || [ -x "/usr/sbin/$d" ] \
      || slurm_fail "$d is missing: install Debian's slurm-wlm and munge" \
      || return 1
  done
  mkdir -p "$slurm_dir/state" "$slurm_dir/spool"
  mungekey -c -k "$slurm_dir/munge.key" -b 1024 && chmod 400 "$slurm_dir/munge.key"
  /usr/sbin/munged -f --socket="$slurm_dir/munge.socket" \
    --key-file="$slurm_dir/munge.key" --pid-file="$slurm_dir/munged.pid" \
    --log-file="$slurm_dir/munged.log" --seed-file="$slurm_dir/munged.seed" \
    || slurm_fail "munged did not start: $(tail -3 "$slurm_dir/munged.log")" || return 1
  slurm_pids+=("$(slurm_pid_of "$slurm_dir/munged.pid")")
  slurm_write_conf "$cpus"
  export SLURM_CONF=$slurm_dir/slurm.conf
  /usr/sbin/slurmctld -i || slurm_fail "slurmctld did not start" || return 1
  slurm_pids+=("$(slurm_pid_of "$slurm_dir/slurmctld.pid")")
  /usr/sbin/slurmd -N clvnode || slurm_fail "slurmd did not start" || return 1
  slurm_pids+=("$(slurm_pid_of "$slurm_dir/slurmd.pid")")
  for i in $(seq 300); do
    [ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ] && return 0
    sleep 0.1
  done
  slurm_fail "the node did not come up: $(sinfo -N 2>&1; tail -5 "$slurm_dir/slurmctld.log" "$slurm_dir/slurmd.log")"
}

slurm_stop () {
  local pid i
  [ -n "$slurm_dir" ] || return 0
  if [ ${#slurm_pids[@]} -ge 3 ]; then
    scancel --quiet --user=root 2>/dev/null || true
    for i in $(seq 100); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  # slurmd, slurmctld, munged: the reverse of their start.
  for ((i = ${#slurm_pids[@]} - 1; i >= 0; i--)); do
    pid=${slurm_pids[$i]}
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  slurm_pids=()
  slurm_dir=
}
