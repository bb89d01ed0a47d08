#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The benchmark harness cannot silently report numbers for wrong data.
#  1. The benchmark program, on rows of every kind (latency of each op under
#     each synchronization, bandwidth, message rate, empty epochs, window
#     creation, across the four flavors) with tiny iteration counts, prints
#     exactly one well-formed "RESULT row number unit" line per row, on the
#     shm path and on the UCX path.
#  2. With the test hook --break-verify (verification expects other data)
#     every row reports "wrong" instead of a number.
#  3. A malformed row is refused.
#  4. The driver (bench/run.py) turns the program's output into a Markdown
#     table and a CSV, and records a program that hangs, crashes or reports
#     wrong data as hang, crash or wrong (stand-in programs), also at the
#     right row when the sizes of a row family share one mpirun.
#  5. Application rows: a halo-exchange kernel row gives a number; an NWChem
#     run whose energy disagrees with the other components' (a stand-in
#     nwchem.openmpi) is recorded as wrong.
#  6. Spreads decide ties; --compare lists the rows that moved.
#  7. NetPIPE rows: a number from Debian's NPopenmpi2, a crash from a
#     stand-in that reports another size.
# usage: bench.sh BINDIR
bindir=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
bench="$bindir/bench/osc_newrma_bench"
dsodir=${OMPI_MCA_mca_base_component_path%%:*}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
errors=0
fail() { echo "FAIL: $*"; errors=$((errors + 1)); }
# a table cell: the median, and the spread (min–max) when there is one
num='[0-9.e+-]+( \([0-9.e+-]+–[0-9.e+-]+\))?'

rows="lat:put:lock:allocate:8 lat:get:flush:create:4096 lat:acc:fence:allocate:64
lat:gacc:flush_local:dynamic:64 lat:fop:pscw:shared:8 lat:cas:lock:create:8
lat:put:pscw:dynamic:65536 bw:put:fence:allocate:1024 bw:get:flush:dynamic:1024
bw:putv:fence:create:4096 bw:getv:flush:allocate:1024
rate:put:flush:allocate:8 empty:-:fence:allocate:- empty:-:lock:create:-
empty:-:lockall:shared:- empty:-:pscw:allocate:- win:-:-:shared:- win:-:-:dynamic:-
lat:accml:flush:create:512 lat:accdi:fence:shared:64 lat:accdi:flush:create:512"

run() { # extra mpirun args... -- bench args...
    local margs=()
    while [ "$1" != -- ]; do margs+=("$1"); shift; done
    shift
    timeout -k 5 60 mpirun -np 2 --oversubscribe --bind-to none --mca osc newrma "${margs[@]}" \
        "$bench" --iters 5 --reps 1 "$@" < /dev/null 2>&1
}

# 1. well-formed numbers, one line per row, on both paths
for path in "" "--mca osc_newrma_shm 0"; do
    out=$(run $path -- $rows) || fail "bench exited with $? ($path)"
    echo "$out"
    for row in $rows; do
        n=$(echo "$out" | grep -c "^RESULT $row ")
        [ "$n" = 1 ] || fail "$row: $n result lines ($path)"
        echo "$out" | grep -qE "^RESULT $row [0-9.]+(e[+-][0-9]+)? (us|MB/s|Mmsg/s)$" ||
            fail "$row: no well-formed number ($path)"
        echo "$out" | grep -qE "^RESULT $row 0(\.0*)? " && fail "$row: zero ($path)"
        echo "$out" | awk -v r="$row" '$1 == "RESULT" && $2 == r { v = $3 }
            $1 == "SPREAD" && $2 == r { n++; lo = $3; hi = $4 }
            END { exit !(n == 1 && lo <= v && v <= hi) }' ||
            fail "$row: no SPREAD line around the value ($path)"
    done
done

# 2. a broken verification turns every row into "wrong"
out=$(run -- --break-verify $rows) || fail "bench --break-verify exited with $?"
echo "$out"
for row in $rows; do
    echo "$out" | grep -qx "RESULT $row wrong -" || fail "$row: not reported wrong"
done

# 3. a malformed row
out=$(run -- lat:put:nosuchsync:allocate:8)
[ $? != 0 ] && echo "$out" | grep -q "RESULT lat:put:nosuchsync:allocate:8 error bad-row" ||
    fail "a malformed row was not refused"

# 4. the driver: table and CSV from real runs ...
drv() { python3 "$top/bench/run.py" --dsodir "$dsodir" --out "$tmp/res" "$@" 2>"$tmp/drv.err"; }
out=$(drv --osc newrma,pt2pt --rows '^lat:put:lock:allocate:8$|^empty:-:fence' --iters 5 \
      --reps 1 --np-max 2 --bench "$bench") || fail "driver exited with $?"
echo "$out"
table="$tmp/res/latest/table-node.md" csv="$tmp/res/latest/results.csv"
grep -q "^| row | unit | newrma | pt2pt | newrma / best other |$" "$table" || fail "table header"
grep -qE "^\| lat put lock allocate 8 B \| us \| $num \| $num \| .*(win|loss|≈)" "$table" ||
    fail "table row for lat put lock"
grep -qE "^\| empty fence allocate \| us \| $num \| $num \|" "$table" || fail "table row for empty fence"
[ "$(grep -c '^node,' "$csv")" = 4 ] || fail "CSV: expected 4 data lines"
grep -qE "^node,lat,put,lock,allocate,8,2,newrma,[0-9.e+]+,us," "$csv" || fail "CSV line for newrma"

# ... and hang, crash and wrong from stand-in programs
printf '#!/bin/bash\nsleep 60\n' > "$tmp/hang.sh"
printf '#!/bin/bash\nexit 7\n' > "$tmp/crash.sh"
printf '#!/bin/bash\n[ "$OMPI_COMM_WORLD_RANK" = 0 ] && echo "RESULT ${!#} wrong -"\nexit 0\n' > "$tmp/wrong.sh"
chmod +x "$tmp"/*.sh
for kind in hang crash wrong; do
    drv --osc newrma --rows '^lat:put:lock:allocate:8$' --timeout 5 --bench "$tmp/$kind.sh" \
        > "$tmp/out.$kind" || fail "driver with a $kind program exited with $?"
    grep -qE "^\| lat put lock allocate 8 B \| - \| $kind \|" "$tmp/res/latest/table-node.md" ||
        { cat "$tmp/out.$kind"; fail "a $kind program was not recorded as $kind"; }
done

# ... and in a family run in one mpirun: a hang at the middle size records
# the sizes before it, the hang, and the larger size as skipped; a crash at
# the middle size is told from its neighbours by running them one by one
cat > "$tmp/family.sh" <<'SHEOF'
#!/bin/bash
for row; do
    case $row in lat:*) ;; *) continue ;; esac
    [ "$row" = "$AT" ] && { [ "$DO" = hang ] && sleep 60; exit 7; }
    [ "$OMPI_COMM_WORLD_RANK" = 0 ] && echo "RESULT $row 1.5 us"
done
exit 0
SHEOF
chmod +x "$tmp/family.sh"
for kind in hang crash; do
    AT=lat:put:lock:allocate:32768 DO=$kind drv --osc newrma --rows '^lat:put:lock:allocate' \
        --timeout 5 --bench "$tmp/family.sh" > "$tmp/out.family" ||
        fail "driver with a family that hits a $kind exited with $?"
    t="$tmp/res/latest/table-node.md"
    after=skipped; [ $kind = crash ] && after=1.5
    grep -qE "^\| lat put lock allocate 512 B \| us \| 1.5 \|" "$t" &&
        grep -qE "^\| lat put lock allocate 32 KiB \| - \| $kind \|" "$t" &&
        grep -qE "^\| lat put lock allocate 2 MiB \| [-us]+ \| $after \|" "$t" ||
        { cat "$t"; fail "a $kind inside a row family was not recorded at its row"; }
done

# 5. application rows
drv --osc newrma,pt2pt --rows '^app:halo:fence' --np-max 2 --apps "$bindir/bench/osc_newrma_apps" \
    > "$tmp/out.app" || fail "driver on app:halo:fence exited with $?"
grep -qE "^\| app halo fence np=2 \| us \| $num \| $num \|" "$tmp/res/latest/table-node.md" ||
    { cat "$tmp/out.app"; fail "no numbers on the halo-exchange row"; }
mkdir -p "$tmp/bin"
printf '#!/bin/bash\ne=-76.25; [ "$OMPI_MCA_osc" = newrma ] && e=-76.2500001\necho " CCSD total energy / hartree       =  $e"\n' \
    > "$tmp/bin/nwchem.openmpi"
chmod +x "$tmp/bin/nwchem.openmpi"
PATH="$tmp/bin:$PATH" drv --osc newrma,rdma,pt2pt --rows '^app:nwchem:ccsd' > "$tmp/out.nw" ||
    { cat "$tmp/drv.err"; fail "driver on app:nwchem:ccsd exited with $?"; }
grep -qE "^\| app nwchem ccsd np=2 \| s \| wrong \| $num \| $num \|" "$tmp/res/latest/table-node.md" ||
    { cat "$tmp/out.nw"; fail "an NWChem energy 1e-7 off was not recorded as wrong"; }

# 6. spreads: a row is a tie when newrma's spread overlaps the best other's;
# --compare lists the rows that moved by more than their spread
python3 - "$top/bench" <<'PYEOF' || fail "ratio_cell does not call overlapping spreads a tie"
import sys
sys.path.insert(0, sys.argv[1])
import run
assert run.ratio_cell(("1.0", (0.9, 1.2)), [("1.1", (1.05, 1.3))], "us")[1] == "tie"
assert run.ratio_cell(("1.0", (0.9, 1.0)), [("1.5", (1.4, 1.6))], "us")[1] == "win"
assert run.ratio_cell(("100", (95, 110)), [("50", (45, 55))], "MB/s")[1] == "win"
PYEOF
printf '#!/bin/bash\n[ "$OMPI_COMM_WORLD_RANK" = 0 ] && echo "RESULT ${!#} $V us" && echo "SPREAD ${!#} $LO $HI"\nexit 0\n' \
    > "$tmp/fixed.sh"
chmod +x "$tmp/fixed.sh"
V=10 LO=9 HI=11 drv --osc newrma --rows '^lat:put:lock:allocate:8$' --bench "$tmp/fixed.sh" > "$tmp/out.fixed" ||
    fail "driver with a fixed-value program exited with $?"
old=$(readlink -f "$tmp/res/latest")
V=10.5 LO=10 HI=12 drv --osc newrma --rows '^lat:put:lock:allocate:8$' --bench "$tmp/fixed.sh" \
    --compare "$old" > "$tmp/out.same" || fail "driver --compare exited with $?"
grep -q "0 rows moved" "$tmp/out.same" || { cat "$tmp/out.same"; fail "--compare: a row within its spread moved"; }
V=20 LO=19 HI=21 drv --osc newrma --rows '^lat:put:lock:allocate:8$' --bench "$tmp/fixed.sh" \
    --compare "$old" > "$tmp/out.moved" || fail "driver --compare exited with $?"
grep -q "1 rows moved" "$tmp/out.moved" && grep -q "lat put lock allocate 8 B osc/newrma: 10 -> 20" "$tmp/out.moved" ||
    { cat "$tmp/out.moved"; fail "--compare: a row that doubled was not listed"; }

# 7. NetPIPE rows: Debian's NPopenmpi2 under the shim gives a number; a
# stand-in that writes no line for the row's size is a crash
np_drv() { drv --osc newrma,pt2pt --rows '^netpipe:put:fence:create:8$' --iters 5 \
               --netpipe-shim "$bindir/bench/netpipe_info.so" "$@"; }
np_drv > "$tmp/out.np" || { cat "$tmp/drv.err"; fail "driver on a NetPIPE row exited with $?"; }
grep -qE "^\| NetPIPE put fence create 8 B \| us \| $num \| $num \|" "$tmp/res/latest/table-node.md" ||
    { cat "$tmp/out.np"; fail "no numbers on the NetPIPE row"; }
printf '#!/bin/bash\necho "       9 1.0 0.000001" > np.out\n' > "$tmp/bin/NPopenmpi2"
chmod +x "$tmp/bin/NPopenmpi2"
PATH="$tmp/bin:$PATH" np_drv > "$tmp/out.np2" || fail "driver on a stand-in NetPIPE exited with $?"
grep -qE "^\| NetPIPE put fence create 8 B \| - \| crash \| crash \|" "$tmp/res/latest/table-node.md" ||
    { cat "$tmp/out.np2"; fail "a NetPIPE run without the row's size was not recorded as crash"; }

[ $errors = 0 ] && echo " No Errors" || { echo "$errors errors"; exit 1; }
