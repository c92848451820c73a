#!/usr/bin/env bash
# The history site in a headless Chromium (history_browser.py says what is checked), with
# $GPUMETER_PYTHON (default python3), which needs Selenium. Exit 77 (skipped, saying why) where
# Selenium, Chromium or its driver is missing, unless GPUMETER_BROWSER_REQUIRED=1: scripts/test.sh
# sets it and runs this with its virtual environment, so CI cannot skip it.
#   run.sh GPUMETER MAKE_HISTORY_RECORDS
set -u
python=${GPUMETER_PYTHON:-python3}
exec "$python" "$(dirname "$0")/history_browser.py" "$1" "$2"
