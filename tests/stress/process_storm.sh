#!/usr/bin/env bash
# The process storm of tests/integration/process_storm.sh for 30 s
# (STORM_S to change it): as many short processes per second as the
# machine makes, all counted, memory flat, no overflow or a stated one.
STORM_S=${STORM_S:-30} exec bash "$(dirname "$0")/../integration/process_storm.sh"
