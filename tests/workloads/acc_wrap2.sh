#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# acc_wrap2.sh CMD [ARGS...]: the inner wrapper shell of the accuracy suite's `wrappers` scenario
# (see acc_wrap1.sh): forks a pipeline of two helpers (cat, wc), then runs CMD as its child and
# waits for it.
lines=$(cat /proc/self/status | wc -l)
[ "$lines" -gt 0 ] || exit 3
"$@"
status=$?
exit "$status"
