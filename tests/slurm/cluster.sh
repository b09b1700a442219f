#!/usr/bin/env bash
# A single-node SLURM for tests/slurm/demo.sh: Debian's slurm-wlm + munge, one node (this host, all its CPUs and
# memory), no accounting database (AccountingStorageType=accounting_storage/none, as on many small clusters).
#   tests/slurm/cluster.sh start   installs slurm-wlm and munge with apt-get when sbatch is missing (as root, or
#                                  through sudo when not root),
#                                  writes /etc/slurm/slurm.conf (the commands inside a job read it from there) and
#                                  starts munged, slurmctld and slurmd directly (no systemd); state and logs go to
#                                  $TST_SLURM_DIR (default /tmp/tst-slurm)
#   tests/slurm/cluster.sh stop    stops the SLURM daemons it started (by the pids in $TST_SLURM_DIR)
# An existing cluster is left alone: with SLURM_CONF set, or an /etc/slurm/slurm.conf this script did not write,
# `start` only checks that `sinfo` answers.
set -euo pipefail

STATE="${TST_SLURM_DIR:-/tmp/tst-slurm}"
CONF=/etc/slurm/slurm.conf
MARK="# written by tests/slurm/cluster.sh"

log() { printf '%s\n' "cluster.sh: $*" >&2; }

# root's commands: directly as root, else through passwordless sudo (a CI runner), else not at all
if [ "$(id -u)" = 0 ]; then
    AS_ROOT=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    AS_ROOT=(sudo -n)
else
    AS_ROOT=(false)
fi

install_packages() {
    if command -v sbatch >/dev/null && command -v slurmctld >/dev/null && command -v munged >/dev/null; then
        return
    fi
    if [ "${AS_ROOT[*]}" = false ]; then
        log "sbatch/slurmctld/munged missing and neither root nor sudo: apt-get install slurm-wlm munge"
        exit 1
    fi
    log "installing slurm-wlm and munge (apt-get)"
    "${AS_ROOT[@]}" apt-get update -q >/dev/null
    "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null
}

write_conf() {
    local node memory
    # `slurmd -C` prints this host's node line (NodeName, CPUs, sockets, cores, threads, RealMemory)
    node="$(slurmd -C | head -n 1)"
    memory="$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")"
    # leave 5% to the system, as a real node's RealMemory does
    node="$(sed "s/RealMemory=[0-9]*/RealMemory=$((memory * 95 / 100))/" <<<"$node")"
    "${AS_ROOT[@]}" tee "$CONF" >/dev/null <<EOF
$MARK: one node, no accounting database
ClusterName=tst
SlurmctldHost=$(hostname -s)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# squeue shows a finished job for 10 minutes: snakemake's status command (squeue, profiles/slurm) needs > 180 s
MinJobAge=600
ReturnToService=2
$node State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
    if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
        return
    fi
    "${AS_ROOT[@]}" mkdir -p /run/munge /var/log/munge /var/lib/munge
    "${AS_ROOT[@]}" chown munge:munge /run/munge /var/log/munge /var/lib/munge
    if ! "${AS_ROOT[@]}" test -s /etc/munge/munge.key; then
        "${AS_ROOT[@]}" mungekey --create --keyfile /etc/munge/munge.key
        "${AS_ROOT[@]}" chown munge:munge /etc/munge/munge.key
        "${AS_ROOT[@]}" chmod 600 /etc/munge/munge.key
    fi
    "${AS_ROOT[@]}" runuser -u munge -- /usr/sbin/munged
    for _ in $(seq 20); do
        munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return
        sleep 0.5
    done
    log "munged did not start"
    exit 1
}

start() {
    install_packages
    if [ -n "${SLURM_CONF:-}" ] || { [ -f "$CONF" ] && ! grep -q -F "$MARK" "$CONF"; }; then
        log "using the configured cluster (${SLURM_CONF:-$CONF})"
        sinfo >/dev/null
        return
    fi
    if [ "${AS_ROOT[*]}" = false ]; then
        log "starting munged, slurmctld and slurmd needs root or passwordless sudo"
        exit 1
    fi
    "${AS_ROOT[@]}" mkdir -p "$STATE/ctld" "$STATE/d" "$(dirname "$CONF")"
    start_munge
    if ! sinfo >/dev/null 2>&1; then
        write_conf
        "${AS_ROOT[@]}" slurmctld -i
        "${AS_ROOT[@]}" slurmd
    fi
    for _ in $(seq 60); do
        if sinfo -h -o '%T' 2>/dev/null | grep -q -E '^(idle|mixed|allocated)'; then
            log "node up: $(sinfo -h -N -o '%N %c CPUs %m MB %T')"
            return
        fi
        "${AS_ROOT[@]}" scontrol update nodename="$(hostname -s)" state=resume >/dev/null 2>&1 || true
        sleep 1
    done
    log "the node did not come up; see $STATE/slurmctld.log and $STATE/slurmd.log"
    exit 1
}

stop() {
    local pidfile
    for pidfile in "$STATE/slurmd.pid" "$STATE/slurmctld.pid"; do
        if [ -s "$pidfile" ]; then
            "${AS_ROOT[@]}" kill "$(cat "$pidfile")" 2>/dev/null || true
        fi
    done
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    *)
        log "usage: $0 start|stop"
        exit 2
        ;;
esac
