#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Run the osc/newrma test list.  Prints one line per run and, last, the
# summary "N passed, N failed".  Exit status is non-zero if anything failed.
#
# usage: run.sh --bindir DIR --dsodir DIR [--list FILE] [--filter REGEX] [--seed N]
#               [--np N] [--variant V] [--batch]
# --np N runs only the entries that list N ranks, at N (N may be a list,
# 2,3,4: the entries' rank counts among them); --variant V runs
# every MPI entry that holds for any path (it lists shm; not shmpath, whose
# checks are the shared-memory path's own choices) with variant V instead
# of its own: the whole list in one mode, e.g. --np 4 --variant mixed.
# --batch runs the plain MPI programs' runs of one rank count and variant
# several to a job (tests/batch/runner.c; not under NEWRMA_TEST_WRAP), after
# the other entries; the runs that set MCA variables of their own before
# MPI_Init, in a job for each set of them; a run that still needs a process
# of its own (another thread level, a set too long), and every run after
# one that ended its job, alone.
# Environment: NEWRMA_TEST_MPIRUN_ARGS (more mpirun arguments),
# NEWRMA_TEST_WRAP (a command every MPI program under test runs under, e.g.
# valgrind) and NEWRMA_TEST_TIME_SCALE (multiplies every time limit).
set -u
here=$(cd "$(dirname "$0")" && pwd)
bindir=""; dsodir=""; list="$here/testlist"; filter=""; seed=${NEWRMA_TEST_SEED:-12345}
only_np=""; only_variant=""; batch=0
wrap=${NEWRMA_TEST_WRAP:-}; scale=${NEWRMA_TEST_TIME_SCALE:-1}
while [ $# -gt 0 ]; do
    case "$1" in
        --bindir) bindir=$2; shift 2 ;;
        --dsodir) dsodir=$2; shift 2 ;;
        --list) list=$2; shift 2 ;;
        --filter) filter=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --np) only_np=$2; shift 2 ;;
        --variant) only_variant=$2; shift 2 ;;
        --batch) batch=1; shift ;;
        *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$bindir" ] && [ -n "$dsodir" ] || { echo "usage: run.sh --bindir DIR --dsodir DIR" >&2; exit 2; }
bindir=$(cd "$bindir" && pwd); dsodir=$(cd "$dsodir" && pwd)

sysdir=$(ompi_info --path pkglibdir --parsable 2>/dev/null | sed -n 's/^path:pkglibdir://p')
[ -n "$sysdir" ] || sysdir=$(ompi_info --path pkglibdir | sed -n 's/.*Pkglibdir: *//p')
export OMPI_MCA_mca_base_component_path="$dsodir:$sysdir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI selects ob1 here anyway (Debian disables pml ucx), after loading
# the cm PML's PSM libraries, which costs 0.2 s of every MPI_Init: name it
# (the user's own choice wins)
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
logdir="$bindir/logs"; mkdir -p "$logdir"
passed=0; failed=0; failures=""

variant_args() {
    case "$1" in
        shm|shmpath|-) echo "" ;;
        ucx) echo "--mca osc_newrma_shm 0" ;;
        tcp) echo "--mca osc_newrma_shm 0 -x UCX_TLS=tcp,self" ;;
        tiny) echo "--mca osc_newrma_shm 0 --mca osc_newrma_slots 1 \
--mca osc_newrma_op_win_pool_size 1 --mca osc_newrma_op_global_pool_size 1 \
--mca osc_newrma_target_win_pool_size 1 --mca osc_newrma_target_global_pool_size 1 \
--mca osc_newrma_am_buffers 1" ;;
        aggall) echo "--mca osc_newrma_shm 0 --mca osc_newrma_aggregate_bytes 4194304 \
--mca osc_newrma_aggregate_threshold 4194304 --mca osc_newrma_lone_rdma 0 \
--mca osc_newrma_get_rdma_bytes 0 --mca osc_newrma_put_rdma_bytes 0" ;;
        noagg) echo "--mca osc_newrma_shm 0 --mca osc_newrma_aggregate_bytes 0" ;;
        smallaggtcp) echo "--mca osc_newrma_shm 0 -x UCX_TLS=tcp,self \
--mca osc_newrma_aggregate_bytes 512" ;;
        pkttcp) echo "--mca osc_newrma_shm 0 -x UCX_TLS=tcp,self --mca osc_newrma_rndv_puts 0" ;;
        lockedtcp) echo "--mca osc_newrma_shm 0 -x UCX_TLS=tcp,self --mca osc_newrma_read_unlocked 0" ;;
        rndv) echo "--mca osc_newrma_shm 0 --mca osc_newrma_bulk_packets 1 \
--mca osc_newrma_aggregate_threshold 1 --mca osc_newrma_rndv_threshold 2 \
--mca osc_newrma_rndv_puts 1" ;;
        rndvtcp) echo "--mca osc_newrma_shm 0 --mca osc_newrma_bulk_packets 1 \
--mca osc_newrma_aggregate_threshold 1 --mca osc_newrma_rndv_threshold 2 \
--mca osc_newrma_rndv_puts 1 -x UCX_TLS=tcp,self" ;;
        bulk) echo "--mca osc_newrma_shm 0 --mca osc_newrma_bulk_packets 1 \
--mca osc_newrma_aggregate_bytes 8192 --mca osc_newrma_aggregate_threshold 1024" ;;
        async) echo "--mca osc_newrma_shm 0 --mca osc_newrma_async_progress 1" ;;
        asynctcp) echo "--mca osc_newrma_shm 0 --mca osc_newrma_async_progress 1 -x UCX_TLS=tcp,self" ;;
        atomics) echo "--mca osc_newrma_shm 0 --mca osc_newrma_acc_atomics 1" ;;
        atomicstcp) echo "--mca osc_newrma_shm 0 --mca osc_newrma_acc_atomics 1 -x UCX_TLS=tcp,self" ;;
        mixed) echo "--mca osc_newrma_test_node_size 2" ;;
        mixedatomics) echo "--mca osc_newrma_test_node_size 2 --mca osc_newrma_acc_atomics 1" ;;
        mixedtcp) echo "--mca osc_newrma_test_node_size 2 -x UCX_TLS=tcp,self" ;;
        fencersb) echo "--mca osc_newrma_shm 0 --mca osc_newrma_fence_packet_ranks 0 \
            --mca osc_newrma_fence_alltoall_ranks 0" ;;
        fencea2a) echo "--mca osc_newrma_shm 0 --mca osc_newrma_fence_packet_ranks 0" ;;
        nocheck) echo "--mca mpi_param_check 0" ;;
        opal0) echo "--mca osc_newrma_wait_opal_every 0 --mca osc_newrma_wait_opal_every_agent 0" ;;
        byref) echo "--mca osc_newrma_acc_stream_bytes 8 --mca osc_newrma_acc_fetch_copy_bytes 8" ;;
        opal1tcp) echo "--mca osc_newrma_shm 0 -x UCX_TLS=tcp,self --mca osc_newrma_wait_opal_every 1 \
            --mca osc_newrma_wait_opal_every_agent 1" ;;
        opal64tcp) echo "--mca osc_newrma_shm 0 -x UCX_TLS=tcp,self --mca osc_newrma_wait_opal_every 64 \
            --mca osc_newrma_wait_opal_every_agent 1024" ;;
        mt) echo "-x MTEST_THREAD_MULTIPLE=1" ;;
        mtucx) echo "--mca osc_newrma_shm 0 -x MTEST_THREAD_MULTIPLE=1" ;;
        mttcp) echo "--mca osc_newrma_shm 0 -x UCX_TLS=tcp,self -x MTEST_THREAD_MULTIPLE=1" ;;
        *) echo "run.sh: unknown variant $1" >&2; exit 2 ;;
    esac
}

np_common() { # entry-ranks only-ranks: the rank counts in both lists
    local out="" n
    for n in ${1//,/ }; do
        [[ ",$2," == *",$n,"* ]] && out="$out${out:+,}$n"
    done
    echo "$out"
}

mpirun_cmd() { # np osc extra-args...
    local np=$1 osc=$2; shift 2
    local yield=""
    [ "$np" -gt 2 ] && yield="--mca mpi_yield_when_idle 1"
    # NEWRMA_TEST_MPIRUN_ARGS: more mpirun arguments for every run (sanitizers.sh)
    echo "mpirun -np $np --oversubscribe --bind-to none $yield ${NEWRMA_TEST_MPIRUN_ARGS:-} --mca osc $osc $*"
}

record() { # status label log seconds
    if [ "$1" = 0 ]; then
        passed=$((passed + 1)); echo "PASS $2 (${4}s)"
    else
        failed=$((failed + 1)); failures="$failures\n  $2 (log: $3)"
        echo "FAIL $2 (${4}s)"; tail -n 15 "$3" | sed 's/^/    | /'
    fi
}

run_one() { # name np limit variant command...
    local name=$1 np=$2 limit=$3 variant=$4; shift 4
    local label="$name np=$np $variant" log="$logdir/$name.$np.$variant.log" rc start=${EPOCHREALTIME/./}
    limit=$((limit * scale))
    if [ "$np" = 0 ] && [ "${1#sh/}" != "$1" ]; then
        local args=("${@:2}")
        args=("${args[@]//@BINDIR/$bindir}")
        timeout -k 5 "$limit" bash "$here/$1" "${args[@]}" < /dev/null > "$log" 2>&1; rc=$?
    elif [ "$np" = 0 ]; then
        timeout -k 5 "$limit" "$bindir/$1" "${@:2}" < /dev/null > "$log" 2>&1; rc=$?
    elif [ "$1" = "@random" ]; then
        run_random "$name" "$np" "$limit" "$variant" "$log" "$2" "$3" "${4:-fence}" "${@:5}"; rc=$?
    elif [ "$1" = "@client" ]; then
        run_client "$np" "$limit" "$variant" "$log" "${@:2}"; rc=$?
    else
        timeout -k 5 "$limit" $(mpirun_cmd "$np" newrma $(variant_args "$variant")) \
            $wrap "$bindir/$1" "${@:2}" < /dev/null > "$log" 2>&1; rc=$?
    fi
    [ $rc = 0 ] && ! grep -q "^ No Errors" "$log" && rc=1
    [ $rc = 124 ] && echo "time limit of ${limit}s reached" >> "$log"
    local us=$((${EPOCHREALTIME/./} - start))
    record $rc "$label" "$log" "$((us / 1000000)).$(printf %02d $((us / 10000 % 100)))"
}

# The reference output of the randomized tester, made once per program
# arguments and rank count (it does not depend on newrma's variant), as the
# clients' are; its path prefix on stdout, what happened on stderr (the
# entry's log).  osc/pt2pt 4.1.4 crashes (a double free or a corrupted heap
# in ompi_osc_pt2pt_process_receive) or hangs on some seeds' accumulates,
# with seed 31337 on every acc entry: a reference that fails hands over to
# osc/sm on a shared window, which the same program's results do not depend
# on (the flavor only places the window), and the entry fails only if both
# do.  Not to osc/ucx: in FENCE epochs at 4 ranks it loses accumulates of
# that seed, where osc/sm, osc/ucx in LOCK_ALL epochs and newrma on every
# path agree.
random_reference() { # np limit flavor epochs sync "acc tight" ref
    local np=$1 limit=$2 flavor=$3 epochs=$4 sync=$5 opts=$6 ref refout rc
    for ref in "$7:$flavor" sm:shared; do
        refout="$bindir/random-ref/${ref#*:}.$sync${opts// /}.$np.$epochs.$seed.${ref%%:*}"
        if [ -e "$refout.done" ]; then
            echo "reference osc/${ref%%:*}: made earlier in this run ($refout)" >&2
            echo "$refout"; return 0
        fi
        [ -e "$refout.failed" ] && continue
        rm -f "$refout".*
        timeout -k 5 "$limit" $(mpirun_cmd "$np" "${ref%%:*}") "$bindir/mpi/random_fence" \
            "$seed" "$epochs" "${ref#*:}" "$refout" "$sync" $opts < /dev/null >&2; rc=$?
        if [ $rc = 0 ]; then
            touch "$refout.done"; echo "$refout"; return 0
        fi
        echo "reference osc/${ref%%:*} on a ${ref#*:} window failed (exit $rc)" >&2
        touch "$refout.failed"
        [ "$ref" = sm:shared ] && break # the shared flavor's own reference
    done
    return 1
}

# Sets rnd_* for a randomized entry: the program's arguments under newrma
# (rnd_args), its reference component, flavor and synchronization, the
# log's first line (rnd_header).
random_plan() { # name np variant flavor epochs sync [acc] [tight]
    local name=$1 np=$2 variant=$3 flavor=$4 epochs=$5 sync=$6
    rnd_acc=""; rnd_tight=""; rnd_ref=pt2pt
    [[ " ${*:7} " == *" acc "* ]] && rnd_acc=acc
    [[ " ${*:7} " == *" tight "* ]] && rnd_tight=tight
    rnd_refsync=$sync; rnd_refflavor=$flavor
    # osc/pt2pt 4.1.4 hangs in some passive epochs of this tester: compare
    # passive epochs with osc/rdma instead; neither has shared windows
    [ "$sync" != fence ] && rnd_ref=rdma
    # PSCW epochs: the program's results do not depend on how its epochs
    # are synchronized, so the reference runs it in fence epochs (osc/pt2pt's
    # PSCW is not the reference)
    [ "$sync" = pscw ] && rnd_ref=pt2pt && rnd_refsync=fence
    # with accumulates, the same in fence epochs, under osc/sm on a shared
    # window (the results do not depend on the flavor either): osc/rdma
    # 4.1.4 leaves wrong sums in lock_all epochs, and osc/pt2pt 4.1.4
    # unpacks an accumulate's packed MPI_SHORT_INT pairs (6 bytes each) at
    # the type's extent (8) into a buffer of the packed size, a heap
    # overflow ASan reports in its fence
    [ -n "$rnd_acc" ] && rnd_ref=sm && rnd_refsync=fence && rnd_refflavor=shared
    # tight passive epochs place each origin's accesses apart (random_fence.c):
    # another program than in fence epochs, so the reference runs the same
    [ -n "$rnd_tight" ] && [[ "$sync" == lock* ]] && rnd_refsync=$sync
    [ "$flavor" = shared ] && rnd_ref=sm
    rnd_out="$bindir/random/$name.$np.$variant"
    rnd_args="$seed $epochs $flavor $rnd_out.newrma $sync $rnd_acc $rnd_tight"
    rnd_header="seed $seed, $sync epochs, reference osc/$rnd_ref in $rnd_refsync epochs"
}

# After newrma's run of random_plan's entry: its results against the
# reference's, made now if not made earlier.
random_check() { # np limit epochs
    local np=$1 limit=$2 epochs=$3 refout r
    refout=$(random_reference "$np" "$limit" "$rnd_refflavor" "$epochs" "$rnd_refsync" \
        "$rnd_acc $rnd_tight" "$rnd_ref") || return 1
    for r in $(seq 0 $((np - 1))); do
        cmp "$rnd_out.newrma.$r" "$refout.$r" || { echo "rank $r differs from osc/${refout##*.}"; return 1; }
    done
    echo "every rank's results match osc/${refout##*.}'s"
}

run_random() { # name np limit variant log flavor epochs sync [acc] [tight]
    local name=$1 np=$2 limit=$3 variant=$4 log=$5 epochs=$7 rc
    random_plan "$name" "$np" "$variant" "${@:6}"
    rm -f "$rnd_out".*
    (
        echo "$rnd_header"
        timeout -k 5 "$limit" $(mpirun_cmd "$np" newrma $(variant_args "$variant")) \
            $wrap "$bindir/mpi/random_fence" $rnd_args < /dev/null || exit 1
        random_check "$np" "$limit" "$epochs"
    ) > "$log" 2>&1; rc=$?
    # newrma's run printed " No Errors" into the log: the caller checks it
    return $rc
}

# ARMCI-MPI settings a client program runs under (@client SETTING ...):
# default (Debian's: every put an MPI_Accumulate(MPI_REPLACE), every get an
# MPI_Get_accumulate(MPI_NO_OP)), noatomic (plain MPI_Put/MPI_Get), dtype
# (noncontiguous transfers as one operation on an indexed datatype),
# strided (strided transfers as one operation on a subarray datatype),
# create (MPI_Win_create on MPI_Alloc_mem memory, batched transfers)
client_env() {
    case "$1" in
        default) echo "" ;;
        noatomic) echo "-x ARMCI_RMA_ATOMICITY=0" ;;
        dtype) echo "-x ARMCI_IOV_METHOD=DIRECT -x ARMCI_RMA_ATOMICITY=0" ;;
        strided) echo "-x ARMCI_STRIDED_METHOD=DIRECT -x ARMCI_IOV_METHOD=DIRECT" ;;
        create) echo "-x ARMCI_USE_WIN_ALLOCATE=0 -x ARMCI_IOV_METHOD=BATCHED" ;;
        *) echo "run.sh: unknown client setting $1" >&2; exit 2 ;;
    esac
}

# A client program (tests/clients) under osc/newrma, then, once per
# program, rank count, setting and arguments, under osc/pt2pt: both check
# their own data, and their "result" lines must be identical.
run_client() { # np limit variant log setting program args...
    local np=$1 limit=$2 variant=$3 log=$4 setting=$5 prog=$6; shift 6
    local env tag ref
    env=$(client_env "$setting") || return 2
    tag=$(echo "$prog.$setting.$np.$*" | tr ' /' '__')
    ref="$bindir/clients-ref/$tag"; mkdir -p "$bindir/clients-ref"
    (
        echo "ARMCI-MPI setting $setting: $env"
        timeout -k 5 "$limit" $(mpirun_cmd "$np" newrma $(variant_args "$variant")) $env \
            $wrap "$bindir/clients/$prog" "$@" < /dev/null > "$log.out" 2>&1; rc=$?
        cat "$log.out"
        [ $rc = 0 ] || exit 1
        if [ ! -s "$ref" ]; then
            timeout -k 5 "$limit" $(mpirun_cmd "$np" pt2pt) $env \
                "$bindir/clients/$prog" "$@" < /dev/null > "$ref.log" 2>&1 || {
                echo "the reference run under osc/pt2pt failed:"; tail -n 20 "$ref.log"; exit 1; }
            grep "^ No Errors" "$ref.log" > /dev/null || { echo "osc/pt2pt: errors"; exit 1; }
            grep "^result " "$ref.log" > "$ref"
        fi
        grep "^result " "$log.out" | diff "$ref" - || { echo "results differ from osc/pt2pt's"; exit 1; }
        echo "results identical to osc/pt2pt's"
    ) > "$log" 2>&1
}

# batch_split, the runner's log split by run (valgrind.sh's too)
. "$here/batch/split.sh"

# --batch: the runs waiting for a job, a file per rank count and variant
# (lines "name limit program args...") in the order they were first queued
batchdir="$bindir/batch-queue"; batch_keys=""; batch_jobs=0; batch_runs=0
rm -rf "$batchdir"; mkdir -p "$batchdir"
# runs to a job: one that ends early costs the rest a job each
BATCH_SIZE=${NEWRMA_TEST_BATCH_SIZE:-40}

batch_queue() { # name np limit variant command...
    local name=$1 np=$2 limit=$3 variant=$4 prog=${5#mpi/}
    [ "$batch" = 1 ] && [ -z "$wrap" ] && [ "$np" != 0 ] || return 1
    if [ "$5" = @random ]; then
        prog=random_fence
        set -- "${@:1:7}" "${8:-fence}" "${@:9}"
    fi
    [ "$5" = "mpi/$prog" ] || [ "$5" = @random ] || return 1
    [ -e "$bindir/mpi/batch/$prog.so" ] || return 1
    [ -e "$batchdir/$np.$variant" ] || batch_keys="$batch_keys $np.$variant"
    shift 4
    echo "$name $limit $*" >> "$batchdir/$np.$variant"
}

batch_job() { # np variant file [env]: up to BATCH_SIZE queued runs, env the
    # MCA variables the job starts with (lines "RANK NAME=VALUE ...")
    local np=$1 variant=$2 file=$3 env=${4:-} total=60 k=0 name limit cmd end label log own g sec ne
    local job="$logdir/batch.$np.$variant.$batch_jobs.log" list="$file.list" dir="$file.out"
    local -a ends=() secs=() noerr=()
    rm -rf "$dir" "$list"; mkdir -p "$dir"
    [ -z "$env" ] || awk '{ for (i = 2; i <= NF; i++) print "@env", $1, $i }' "$env" > "$list"
    while read -r name limit cmd; do
        set -- $cmd
        if [ "$1" = @random ]; then
            random_plan "$name" "$np" "$variant" "${@:2}"; rm -f "$rnd_out".*
            set -- mpi/random_fence $rnd_args
        fi
        echo "$((limit * scale)) $bindir/mpi/batch/${1#mpi/}.so ${1#mpi/} ${*:2}" >> "$list"
        total=$((total + limit * scale))
    done < "$file"
    batch_jobs=$((batch_jobs + 1))
    timeout -k 5 "$total" $(mpirun_cmd "$np" newrma $(variant_args "$variant")) \
        "$bindir/mpi/batch/runner" "$list" < /dev/null > "$job" 2>&1
    batch_split "$job" "$dir"
    [ ! -e "$dir/summary" ] || while read -r k end sec ne; do
        ends[k]=$end; secs[k]=$sec; noerr[k]=$ne
    done < "$dir/summary"
    k=0
    while read -r name limit cmd; do
        label="$name np=$np $variant"; log="$logdir/$name.$np.$variant.log"
        end=${ends[k]:-}; own=""
        [ "$end" = own ] && [ -e "$dir/$k.own" ] && own=$(< "$dir/$k.own")
        if [ "$end" = own ] && [ -z "$env" ] && [ -n "$own" ] && [[ "$own" != *_test_fail_* ]]; then
            # a job of its own variables, with the others that set the same
            # (not a failure injected once per process: alone)
            g="$batchdir/$np.$variant.env.$(echo "$own" | md5sum | cut -c1-12)"
            echo "$own" > "$g.spec"; echo "$name $limit $cmd" >> "$g.runs"
        elif [ -z "$end" ] || [ "$end" = own ]; then
            run_one "$name" "$np" "$limit" "$variant" $cmd
        else
            mv "$dir/$k.log" "$log"
            if [ "$end" = - ]; then
                { echo "the job ended in this run:"; tail -n 20 "$job"; } >> "$log"; end=1
            fi
            [ "$end" = 0 ] && [ "${noerr[k]}" != 1 ] && end=1
            set -- $cmd
            if [ "$1" = @random ] && [ "$end" = 0 ]; then
                random_plan "$name" "$np" "$variant" "${@:2}"
                { echo "$rnd_header"
                  random_check "$np" "$((limit * scale))" "$3"; } >> "$log" 2>&1 || end=1
            fi
            batch_runs=$((batch_runs + 1))
            record "$end" "$label" "$log" "${secs[k]}"
        fi
        k=$((k + 1))
    done < "$file"
}

batch_run_all() {
    local key part g
    for key in $batch_keys; do
        split -l "$BATCH_SIZE" -d -a 3 "$batchdir/$key" "$batchdir/$key.part."
        for part in "$batchdir/$key".part.[0-9][0-9][0-9]; do
            batch_job "${key%%.*}" "${key#*.}" "$part"
        done
        for g in "$batchdir/$key".env.*.runs; do
            [ -e "$g" ] && batch_job "${key%%.*}" "${key#*.}" "$g" "${g%.runs}.spec"
        done
    done
}

# client and randomized-tester reference results belong to this build of
# the programs
rm -rf "$bindir/clients-ref" "$bindir/random-ref"
mkdir -p "$bindir/random" "$bindir/random-ref"

while read -r name ranks limit variants cmd; do
    case "$name" in ''|\#*) continue ;; esac
    [ -n "$filter" ] && ! [[ "$name" =~ $filter ]] && continue
    if [ -n "$only_np" ]; then
        ranks=$(np_common "$ranks" "$only_np")
        [ -n "$ranks" ] || continue
    fi
    if [ -n "$only_variant" ]; then
        [[ ",$variants," == *",shm,"* ]] || continue
        variants=$only_variant
    fi
    for np in ${ranks//,/ }; do
        for v in ${variants//,/ }; do
            batch_queue "$name" "$np" "$limit" "$v" $cmd || run_one "$name" "$np" "$limit" "$v" $cmd
        done
    done
done < "$list"
batch_run_all
[ "$batch" = 1 ] && echo "batched: $batch_runs runs in $batch_jobs jobs"

[ $failed -gt 0 ] && printf "failed:$failures\n"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
