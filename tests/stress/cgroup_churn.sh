#!/usr/bin/env bash
# The cgroup churn of tests/integration/cgroup_churn.sh for 60 s, and
# faster (2 ms of work per cgroup): thousands of cgroups made, used and
# removed under -G parents while watched, all counted, nothing on stderr,
# memory flat. CHURN_S and CHURN_WORK_MS change them.
CHURN_S=${CHURN_S:-60} CHURN_WORK_MS=${CHURN_WORK_MS:-2} \
	exec bash "$(dirname "$0")/../integration/cgroup_churn.sh"
