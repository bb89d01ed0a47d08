#!/bin/bash
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Every osc/newrma MCA variable is listed by ompi_info at level 9 with a help
# text that states its default.
out=$(ompi_info --param osc newrma --level 9 --parsable 2>&1)
errors=0
for v in priority verbose slots op_win_pool_size op_global_pool_size target_win_pool_size \
         target_global_pool_size piggyback_threshold single_op_threshold \
         single_op_emulated_threshold shm async_progress lock_data_bytes lock_parallel \
         active_req_threshold shm_cache_bytes dynamic_regions \
         test_fail_rdma wait_opal_every wait_opal_every_agent get_rdma_bytes put_rdma_bytes rndv_threshold rndv_puts; do
    help=$(echo "$out" | grep "^mca:osc:newrma:param:osc_newrma_$v:help:" | cut -d: -f7-)
    if [ -z "$help" ]; then
        echo "osc_newrma_$v: missing or without help text"; errors=$((errors + 1))
    elif ! echo "$help" | grep -q "default"; then
        echo "osc_newrma_$v: help text does not give the default"; errors=$((errors + 1))
    fi
done
[ $errors = 0 ] && echo " No Errors"
exit $errors
