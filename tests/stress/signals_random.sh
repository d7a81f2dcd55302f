#!/usr/bin/env bash
# The random signals of tests/integration/signals_random.sh, 300 runs
# (SIGNALS_N to change it, SIGNALS_SEED to repeat a sequence).
SIGNALS_N=${SIGNALS_N:-300} exec bash "$(dirname "$0")/../integration/signals_random.sh"
