# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Sourced by tests/run.sh and tests/sh/valgrind.sh: tests/batch/runner.c's
# log read back.
# A batch job's log split by run: $dir/K.log, what run K printed, and a
# line "K END SECONDS NOERRORS" in $dir/summary for each run that began, END
# "0", another exit status, "own" or "-" (the job ended in it), NOERRORS 1
# if it printed " No Errors"; the MCA variables of an "own" run, one line
# per rank, in $dir/K.own.  One pass: a fork per run costs 5 ms here.
batch_split() { # log dir
    awk -v dir="$2" -v job="$1" '
        function finish(end, secs) {
            print "(run " k " of the batch job " job ")" >> cur; close(cur)
            print k, end, secs, noerr > (dir "/summary"); cur = "" }
        match($0, /@@batch begin [0-9]+/) {
            k = substr($0, RSTART + 14, RLENGTH - 14); cur = dir "/" k ".log"
            printf "" > cur; noerr = 0; next }
        match($0, /@@batch end [0-9]+ rc=[^ ]+ [0-9.]+/) {
            split(substr($0, RSTART, RLENGTH), f, /[ =]/)
            finish(f[5], f[6]); next }
        match($0, /@@batch own .*/) {
            print substr($0, RSTART + 12) >> (dir "/" k ".own") }
        cur != "" && /^ No Errors/ { noerr = 1 }
        cur != "" { print >> cur }
        END { if (cur != "") finish("-", 0) }' "$1"
}
