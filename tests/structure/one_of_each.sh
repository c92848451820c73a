#!/usr/bin/env bash
# One backend chooser, one lock taker, one set of exit codes, one finish of a record, one
# conclusion of two compared, verdicts in the core, one reading of CUPTI's records: fails, naming
# the lines, when the source tree holds a second. Front ends parse their arguments and hand them to
# a Session (src/include/gpumeter/session.hpp); a rule copied into one of them drifts from the
# others.
#
#   one_of_each.sh SOURCE_DIR
set -u
root=${1:?usage: one_of_each.sh SOURCE_DIR}
cd "$root" || exit 2
failed=0
# Fails the check, printing what and the lines in $found, when $found holds any.
refuse_found() {
  [[ -z "$found" ]] && return 0
  echo "FAIL: $1" >&2
  echo "$found" >&2
  failed=1
}

# Every C++ and CUDA source and header of the project (not the build trees, not third parties).
sources() {
  find src include python/src examples bench testkit tests -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h' \) \
    -not -path '*/build*' 2>/dev/null | sort
}

# check NAME REGEX ALLOWED_REGEX: every line of code (a comment line aside) matching REGEX in a
# file whose path does not match ALLOWED_REGEX is a second copy.
check() {
  local name=$1 pattern=$2 allowed=$3 found
  found=$(sources | grep -Ev "$allowed" | xargs grep -nE "$pattern" /dev/null |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*//')
  if [[ -n "$found" ]]; then
    echo "FAIL: $name outside its one place:" >&2
    echo "$found" >&2
    failed=1
  fi
}

# forbid WHAT FILE REGEX: a line of FILE matching REGEX is WHAT.
forbid() {
  local found
  found=$(grep -nE "$3" "$2")
  if [[ -n "$found" ]]; then
    echo "FAIL: $1:" >&2
    echo "$found" >&2
    failed=1
  fi
}

# The backend chooser: the Session's (src/session). A front end that chooses a backend itself,
# or makes one, has a second chooser. The backends' own libraries make them, tests test them,
# and the studies under bench/ time one backend on purpose.
# A vendor answers the session's questions through gpumeter/device_backends.hpp: its choose() is
# the vendor's half of the one choice (CUDA's, and the test's replay).
check "a backend chooser" '\bchoose(_backend)?[[:space:]]*\(' \
  '^(src/session/|src/include/gpumeter/device_backends\.hpp$|src/cuda/session_vendor\.cpp$|tests/unit/test_replay_vendor\.cpp$)'
check "a backend made by a front end" \
  '\bmake_(cuda_|cuda_events_|cuda_wall_|host_|host_stand_in_)backend[[:space:]]*\(' \
  '^(include/gpumeter|src/session|src/cuda|src/host|bench|tests)/'

# No vendor's code in the core, the session or the backend seam's headers: a vendor's headers,
# calls and types live in its own folder (src/cuda, src/collector, src/system's NVML watch) and
# reach the session through the registry of device backends (src/session/vendors.cpp, the one
# file that knows which vendors a build has). The words a record holds ("cupti", "cuda-events")
# are the record format's, and an error class keeps the name of its cause (CuptiUnavailable).
# The core's private headers (src/include/gpumeter, its rules the front ends use) are held so too.
found=$(find src/core src/session include/gpumeter/backend include/gpumeter/detail \
  src/include/gpumeter/{candidate_verdict,checker_account,default_tolerance,exit_help,history,host_clock,option_meaning,option_spec,option_table,pattern,ranges,run_recorder,run_target}.hpp \
  -type f \( -name '*.cpp' -o -name '*.hpp' \) -not -path src/session/vendors.cpp | sort |
  xargs grep -nE '#include[[:space:]]*[<"](cuda|cupti|nvml|cublas|nvtx|gpumeter/cuda\.hpp)|\b(cu|cupti|nvml|cublas|nvtx)[A-Z][A-Za-z0-9_]*[[:space:]]*\(|\b(cuda|cupti|nvml)_[a-z_]+[[:space:]]*\(|\b(Cuda|Nvml)[A-Z][A-Za-z]*\b' |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*//')
refuse_found "a vendor's code outside its backend's folder:"

# The lock taker: take_device_lock (src/session). DeviceLock is constructed there, and by the
# lock's own unit test.
check "a device lock taken" \
  '(make_unique|make_shared)<[[:space:]]*DeviceLock[[:space:]]*>|\bDeviceLock[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*[({]|\bnew[[:space:]]+DeviceLock\b' \
  '^(src/session/|src/system/device_lock\.cpp$|include/gpumeter/device_lock\.hpp$|tests/unit/test_device_lock\.cpp$)'

# The exit codes: include/gpumeter/exit_codes.hpp.
check "an exit code defined" \
  '(constexpr|const|#define|enum)[^;]*\b(k)?EXIT_?[A-Za-z_]*[[:space:]]*=|constexpr[^;]*\bkExit[A-Za-z]*\b' \
  '^include/gpumeter/exit_codes\.hpp$'

# An error's exit code: the catalogue's (src/include/gpumeter/error_catalogue.hpp), through
# exit_code_of_error. A catch of a catalogued error that returns a kExit* of its own is a second
# mapping (compare, report, merge and history once returned 2 for InvalidRecord, which the
# catalogue said was 1).
found=$(find src python/src -type f -name '*.cpp' | sort |
  xargs grep -nE -A4 'catch[[:space:]]*\(const[[:space:]]+[A-Za-z:]*(VerificationFailed|InputsModified|OffThreadLaunch|AttributionError|WrongDevice|CollectionStopped|UnaccountedWork|AnswerNotPlain|OtherProcessOnDevice|RecordsLost|CuptiUnavailable|TimestampUnitMismatch|DeviceBusy|MixedTimingMethods|IncomparableStatistics|InvalidRecord|CollectorRecordsLost|CorruptTrace|LaunchNotFound|KernelRecordsMissing|PartsMissing|UserCodeError|DeviceError|ConfigError|MergeRefused|RangeNotOpen|RangeLeftOpen|NoRangesFound|ProgramRunsDiffer|ProgramProcessError)[[:space:]]*&' /dev/null |
  grep -E 'return[[:space:]]+kExit')
refuse_found "an error mapped to an exit code outside the catalogue (use exit_code_of_error):"

# A record's derived parts: src/core/finish.cpp, over the rules of summary.cpp and comparison.cpp.
# A second caller shows numbers by rules of its own (the markdown reporter once recomputed an old
# record's comparisons by the current rules). Tests and studies call the rules themselves.
check "a record's summaries or comparisons derived" '\b(summarize|compare_results)[[:space:]]*\(' \
  '^(src/core/(finish|summary|comparison)\.cpp$|include/gpumeter/detail/(summary|comparison)\.hpp$|tests/|bench/)'

# Verdicts and row statuses are the core's words (candidate_verdict.cpp, row_status.cpp).
check "a verdict or row status spelled" '"(crashed|timeout|tampered)"' '^(src/core/|tests/)'

# Two records compared, reported and concluded in one composition (compare_and_report in the report
# layer): no front end calls the comparison or the conclusion itself.
check "two records compared or concluded" '\b(conclude|compare_records)[[:space:]]*\(' \
  '^(src/core/|src/report/reporter\.cpp$|include/gpumeter/detail/record_comparison\.hpp$|tests/|bench/)'

# The gate is judged once, by conclude() (record_comparison.cpp): the report words the conclusion's
# gate, and the pytest plugin reads whether it failed (gate_fails). A second judge may say another.
check "a gate judged" '\bjudge_gate[[:space:]]*\(' \
  '^(src/core/record_comparison\.cpp$|include/gpumeter/detail/record_comparison\.hpp$|tests/|bench/)'
forbid "the pytest plugin judges a gate from an exit code (read gate_fails)" \
  python/gpumeter/pytest_plugin.py 'exit_code[[:space:]]*!='
# A row missing from the baseline and an unreadable record are concluded by the core too
# (conclude_missing, conclude_unreadable): the plugin spells no rule of what fails the gate.
forbid "the pytest plugin decides what fails the gate (ask the core's conclusion)" \
  python/gpumeter/pytest_plugin.py 'not[[:space:]]+self\.allow_missing|_Verdict\(name,[[:space:]]*self\.'

# CUPTI's activity records are read in one place, src/cuda/cupti_records.hpp, which the backend and
# `gpumeter run`'s collector share (two copies drifted: the collector dropped peer copies). The
# watch-cost study under bench/ only counts records by kind.
check "a CUPTI activity record read" 'case[[:space:]]+CUPTI_ACTIVITY_KIND_' \
  '^(src/cuda/cupti_records\.hpp$|bench/)'

# Two records compared conclude in the core (conclude()): the pytest plugin reads it typed, and
# neither runs the gpumeter command nor parses its output.
forbid "the pytest plugin runs the command or parses its output" \
  python/gpumeter/pytest_plugin.py '_gpumeter\.cli\(|Regressions beyond|"Note: "'

# JSON text in the Python package is read and written by python/gpumeter/_wire.py alone (a child's
# order and report, evaluate's lines, the pytest index): a second reader of a protocol drifts from
# its writer. The fresh process of phases() loads _wire.py by its file (importing the package would
# count as its process start). _locate.py, run as a script in the candidates' interpreter to find
# their functions without importing anything of theirs or ours, still writes with json itself.
found=$(grep -nE '^[[:space:]]*(import json|from json )|\bjson\.(loads?|dumps?)\(' python/gpumeter/*.py |
  grep -vE '^python/gpumeter/(_wire|_locate)\.py:')
refuse_found "JSON read or written outside python/gpumeter/_wire.py:"

# The tolerances a check uses by default are the core's (default_tolerance.hpp, exported as
# DEFAULT_RTOL and DEFAULT_ATOL): a Python signature or option that writes its own drifts.
found=$(grep -nE '\b[ra]tol\b[^=]*=[[:space:]]*[0-9.]+e-?[0-9]+|default=[0-9.]+e-[0-9]+' \
  python/gpumeter/*.py | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#')
refuse_found "a default tolerance written outside default_tolerance.hpp:"

# A process of the package's own (evaluate's candidates and programs, phases' fresh processes) is
# run and waited for by python/gpumeter/_child.py alone: its timeout, its session's kill and its
# report pipe are written once.
found=$(grep -nE '\bsubprocess\b|\bos\.(pipe|fork|killpg|spawn[a-z]*)\b' python/gpumeter/*.py |
  grep -vE '^python/gpumeter/_child\.py:' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#')
refuse_found "a process started or waited for outside python/gpumeter/_child.py:"

# The package's modules import each other at module level: an import of its own indented in a
# function dodges an import cycle, which the split by concern (issue 37) leaves none of. Lines in
# docstrings (between triple quotes) are examples, not code. _evaluate.py imports gpumeter in its
# functions on purpose: the module loads from the file alone, and its parser takes the shared
# options from the extension only when it is built, so tests/python/test_cli_help.py can print its
# help for the C++ command's copy.
found=$(awk '
  FILENAME != file { file = FILENAME; in_docstring = 0 }
  { quotes = gsub(/"""/, "&") }
  !in_docstring && quotes == 0 &&
    /^[ \t]+(from \.[A-Za-z0-9_.]* import|import gpumeter([ \t.,]|$)|from gpumeter([ \t.]|$))/ {
    print FILENAME ":" FNR ":" $0
  }
  quotes % 2 == 1 { in_docstring = !in_docstring }
' python/gpumeter/*.py | grep -vE '^python/gpumeter/_evaluate\.py:')
if [[ -n "$found" ]]; then
  echo "FAIL: an import of the package's own modules inside a function (import it at module" \
    "level; split the module whose import would be a cycle):" >&2
  echo "$found" >&2
  failed=1
fi
# The timings' names are the session's (kTimingNames, read by parse_timing): a front end that maps
# a name to a Timing itself accepts names the others refuse (Python's module once took "auto" and
# each program's --timing mapped its own).
check "a timing named" 'timing[[:space:]]*[!=]=[[:space:]]*"(auto|cupti|events|host)"' \
  '^(src/include/gpumeter/session\.hpp$|src/session/|tests/|bench/)'
# The words records hold for timing methods and statistics ("cuda-events", "host-wall",
# "cuda_event") are the record format's: only the record writer and reader spell them
# (src/record/record_words.cpp). Users read the core's one name per method (kTimingMethodNames);
# each method once had six or seven names, so a user who typed --timing events read another back.
found=$( { sources; find python examples -name '*.py' -not -path '*/build*'; } | sort -u |
  grep -vE '^(src/record/record_words\.cpp$|tests/|bench/)' |
  xargs grep -nE 'cuda-events|host-wall|\bcuda_event\b' /dev/null)
refuse_found "a record's word for a timing method or statistic outside the record writer and reader:"
# A public type names no vendor's software versions: a DeviceState holds SoftwareVersion{name,
# value} as its backend names them, and only the record layer knows the record's keys for them
# (kSoftwareVersionFields), so a second vendor needs no field of its own.
found=$(grep -rnE 'cuda_driver_version|cuda_runtime_version|cupti_version' include /dev/null)
refuse_found "a vendor's software version as a field of a public type:"
# Nor does a front end trade the user's timing for another: the main job once turned --timing host
# into host_only, so host meant the CPU work there and the synchronized wall clock elsewhere.
check "a user's timing traded for host_only" 'timing[[:space:]]*=[[:space:]]*(gpumeter::)?Timing::host_only' \
  '^(src/include/gpumeter/session\.hpp$|src/session/|python/src/module\.cpp$|tests/|bench/)'

# The main job's exit code for an error is the catalogue's (exit_code_of_error), as every
# program's: it once chose ConfigError 2, DeviceBusy 4 and any other 1 by hand in its handlers.
found=$(awk '
  FNR == 1 { in_handler = 0 }
  {
    if (match($0, /catch[[:space:]]*\([[:space:]]*const[[:space:]]+[A-Za-z_:]+[[:space:]]*&/)) {
      in_handler = substr($0, RSTART, RLENGTH) !~ /std::/
      match($0, /^[[:space:]]*/); depth = RLENGTH
      next
    }
    if (in_handler && match($0, /^[[:space:]]*}/) && RLENGTH - 1 <= depth) in_handler = 0
    if (in_handler && $0 ~ /return[[:space:]].*kExit/) print FILENAME ":" FNR ": " $0
  }' src/main_job/gpumeter_example.cpp)
if [[ -n "$found" ]]; then
  echo "FAIL: an exit code chosen by hand for one of gpumeter's errors (return" \
    "exit_code_of_error(e)):" >&2
  echo "$found" >&2
  failed=1
fi

# --backend is gone (the main job's --timing took its place): no source, comment or doc names
# it. Old records (tests/fuzz, bench/results) keep it as they were written.
found=$(grep -rnE -- '--backend\b' src include examples python docs README.md 2>/dev/null)
refuse_found "the main job's old --backend named (its --timing took its place):"

# A statistic's title is wording.cpp's statistic_title, exported to Python (plot.py): the reports,
# the compare table, Python's repr and the plots once each wrote their own ("wall clock",
# "synchronized wall clock", "CUDA event time").
check "a statistic's title" '"wall clock"' '^(src/core/wording\.cpp$|tests/|bench/)'
found=$(grep -nE '"(synchronized wall clock|CUDA event time)"' python/gpumeter/*.py)
refuse_found "a statistic's title written in Python (_gpumeter.statistic_title gives it):"

# The benchmark programs' options are one table (src/core/option_table.cpp), and the gpumeter
# command's another (src/cli/command_options.cpp), sharing the meanings of the options both have:
# each registers from its entry, so none is added to a CLI::App by name in src/benchmark or src/cli.
check "an option of a benchmark program or of the gpumeter command registered by name" \
  '\badd_(flag|option|option_function<[^>]*>)[[:space:]]*\([[:space:]]*"-' '^(src/program/|src/main_job/|tests/|bench/|examples/|testkit/)'

# A comparison's finding and the wall clock's resolution are the core's (direction_of in
# candidate_verdict.cpp, kResolutionRatio in verdict.hpp): the Python package reads
# Comparison.found and .finding and _gpumeter.RESOLUTION_RATIO. A front end that matches a
# verdict's words, writes the 1.5x factor into a rule, or reads a direction off an interval's ends
# or a ratio's claim judges by a copy (the sweep once matched "no measured difference"; plot
# copied the 1.5x rule). Comment lines aside.
found=$(grep -nP '(==|!=|\bin)\s*\(?\s*["'"'"'](no measured difference|directional difference|no difference|faster|slower)["'"'"']|\.(label|text|wording|resolution|finding)\s*(==|!=)|(=|<|>)\s*1\.5\b(?!\s*[a-z])|\b1\.5\s*(\*|/|<|>)|(?<!\+ )\b\w+\.(low|high)\s*[<>]=?\s*0\b|\.claimed\b' \
  python/gpumeter/*.py | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#')
if [[ -n "$found" ]]; then
  echo "FAIL: a verdict's words matched, the 1.5x factor written, or a direction read off an" \
    "interval in the Python package (read Comparison.found, .finding, _gpumeter.RESOLUTION_RATIO):" >&2
  echo "$found" >&2
  failed=1
fi
# The same in the C++ front ends (the reporters, the commands, the binding, the programs): a
# difference's direction is the core's (RelativeDifference::slower/faster, direction_of).
check "a direction read off an interval's ends" \
  '(^|[^+] )\b[a-z_]+(\.|->)(low|high)[[:space:]]*[<>]=?[[:space:]]*0\b' \
  '^(src/core/|include/gpumeter/detail/difference\.hpp$|tests/|bench/)'
# A row's flags (low clock, copy > busy, uncounted copy, drops unproven...) are decided by the
# core's row_flags (row_status.cpp) from the row's numbers; reporters word them. The markdown
# reporter once decided "copy > busy" and "low clock" itself.
check "a row's flag decided outside the core" \
  'clock_below_reference[[:space:]]*\(|median_uncounted_copy_ns[[:space:]]*[<>]|[<>][[:space:]]*[a-z_.]*median_uncounted_copy_ns' \
  '^(src/core/|include/gpumeter/detail/clock_state\.hpp$|tests/|bench/)'
# A row's null-test outcome and flags are decided once, where its record is finished
# (src/core/finish.cpp: summarize_result, finish_record), stored in the result and in the record,
# and checked by the reader, which derives them through the same two; reporters, CSV, Python and
# the history site read Result::null_test_outcome and Result::flags. A second caller of the
# deciding functions (or of the rules under them) is a copy that can disagree with the record: the
# null test was once re-derived at 16 call sites. Their definitions and declarations aside; the
# unit tests of the rules themselves call them.
found=$(sources | grep -Ev '^(src/core/finish\.cpp|tests/unit/test_comparison\.cpp|tests/unit/test_moved_work\.cpp)$' |
  xargs grep -nE '\b(null_test_of|row_flags)[[:space:]]*\(' /dev/null |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' |
  grep -vE '^(src/core/comparison\.cpp|include/gpumeter/detail/comparison\.hpp):[0-9]+:std::optional<NullTestOutcome> null_test_of\(const Result& result\)' |
  grep -vE '^(src/core/row_status\.cpp|src/include/gpumeter/row_status\.hpp):[0-9]+:RowFlags row_flags\(const Result& result, int record_highest_mhz\)')
if [[ -n "$found" ]]; then
  echo "FAIL: a row's null-test outcome or flags decided outside finish() (read" \
    "Result::null_test_outcome and Result::flags):" >&2
  echo "$found" >&2
  failed=1
fi
check "the null test's rule or the call-overhead flag's applied outside the core's deciders" \
  '\b(evaluate_null_test|measures_call_overhead)[[:space:]]*\(' \
  '^(src/core/(comparison|row_status|host_clock|verdict)\.cpp$|src/include/gpumeter/host_clock\.hpp$|include/gpumeter/detail/verdict\.hpp$|tests/|bench/)'

# A value's unit is read by the core's one reader (src/core/number_rule.cpp: a fraction, 2% or
# 0.02; a duration, 10s, 500ms or bare seconds): a front end that strips a "%", "ms" or "s" from an
# option's text reads it by a rule of its own (`--precision 1` was 1% in the benchmark programs
# and 100% in `gpumeter evaluate`; `--max-time 10s` was refused there).
check "an option's unit read outside the core's reader" \
  '(ends_with|strip|remove_suffix)[[:space:]]*\([^;]*"(%|ms|s)"\)' \
  '^(src/core/number_rule\.cpp$|tests/|bench/)'
found=$(grep -nE "(endswith|rstrip|removesuffix|split)\([\"'](%|ms|s)[\"']|type=float[^)]*metavar=\"(S|T|P|FRACTION)\"" \
  python/gpumeter/*.py | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#')
refuse_found "a precision or a duration read outside the core's reader:"
# The options every front end shares (--timing, --budget, --precision, --max-time) are the core's
# specs (option_spec.hpp): evaluate's parser adds them from option_specs(), never by name.
found=$(grep -nE 'add_argument\([[:space:]]*"--(timing|budget|precision|max-time)"' python/gpumeter/*.py)
refuse_found "a shared option added by name, not from the core's specs:"
# Every program's exit codes in its help are made from the one table (exit_codes.hpp's
# kExitCodeMeanings, by exit_codes_help in src/core/exit_help.cpp): fourteen sentences typed by hand
# had drifted apart.
check "an exit codes sentence typed by hand" '"Exit codes:' '^(src/core/exit_help\.cpp$|tests/|bench/)'
found=$(grep -nE '"Exit codes:' python/gpumeter/*.py)
refuse_found "an exit codes sentence typed by hand (exit_codes_help, through the extension):"
# The longest name a record holds is the core's kMaxNameBytes, exported as MAX_NAME_BYTES.
forbid "a copy of kMaxNameBytes in Python (use _gpumeter.MAX_NAME_BYTES)" python/gpumeter/_checks.py \
  '^_MAX_NAME_BYTES[^=]*=[[:space:]]*[0-9]'
# gpumeter plot exits with the extension's EXIT_* (exit_codes.hpp), never a number of its own.
forbid "an exit code written as a number in plot.py (use _gpumeter.EXIT_*)" python/gpumeter/plot.py \
  '(sys\.exit|SystemExit)\([0-9]+\)|return[[:space:]]+[0-9]+[[:space:]]*(#.*)?$'
# The unit tests' files are compiled as one unit an executable (tests/unit/CMakeLists.txt): a
# helper in an anonymous namespace would share that namespace with every other file's, and a call
# could find another file's overload without a word. Each file's own namespace is GPUMETER_THIS_FILE.
found=$(grep -nE '^[[:space:]]*namespace[[:space:]]*\{' tests/unit/test_*.cpp)
refuse_found "an anonymous namespace in a unit test file (use namespace GPUMETER_THIS_FILE):"

# A size (--memory) is read by the core's reader (NumberKind::size, the rule 'memory_limit'):
# evaluate once had a regex of its own, its units and minimum its own.
found=$(grep -nE '\[KMGT' python/gpumeter/*.py)
refuse_found "a size parsed in Python (read_number's size rule, through the extension):"
# gpumeter plot has one parser, the module's (plot.py): the C++ command registers no option, and
# the accepted values are plot.FORMATS and plot.KINDS, written once (the generated help aside).
forbid "an option of gpumeter plot registered by the C++ command (plot.py's parser owns them)" \
  src/cli/plot.cpp 'add_(command_)?option|add_flag'
found=$(grep -rnE '"[^"]*(svg, png|sweep, totals)' src include python/gpumeter --include='*.cpp' \
  --include='*.hpp' --include='*.py')
refuse_found "plot's formats or kinds written out (plot.FORMATS, plot.KINDS):"
# Python's keywords say their range and default from the core's specs, not copies of them.
forbid "a copy of the core's budget or time cap in a docstring (name the option instead)" \
  python/gpumeter/_measure.py '0\.1 to 3600|\(25, 100\)|1e6 ms|cap, 10 s'
# The base Error's class and exit code are the catalogue's fallback (error_class, exit_code_of_error).
forbid "the base Error's class or exit code written by hand (take the catalogue's)" \
  python/gpumeter/_errors.py '^[[:space:]]*(error_class|exit_code)[[:space:]]*=[[:space:]]*("|[0-9])'
# A difference's amount is worded by the core (difference_amounts, as_factor) and the resolution
# ratio said from RESOLUTION_RATIO: plot once copied the wording and wrote "1.5x" into captions.
forbid "a copy of the core's amount wording in plot.py (use _gpumeter.difference_amounts)" \
  python/gpumeter/plot.py '^def _(factor|amount|interval_words)\b'
found=$( { grep -nE '"[^"]*1\.5x[^"]*"' python/gpumeter/*.py | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#|"""'
  grep -rnE '"[^"]*1\.5x[^"]*"' src/report src/cli | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//'; } )
refuse_found "the resolution ratio written as \"1.5x\" in a front end (RESOLUTION_RATIO, kResolutionRatio):"
if [[ $failed -eq 0 ]]; then
  echo "one backend chooser, one lock taker, one set of exit codes, one finish, one conclusion," \
    "one CUPTI record decoder, one JSON wire, one child runner, no import of the package's own" \
    "inside a function, one list of timing names, one table of options per front end, no vendor's" \
    "code outside its folder, no verdict judged by a front end's copy, one reader of a precision" \
    "and a duration, the shared options from the core's specs, exit codes' help from one table," \
    "a row's null test and flags decided once, one namespace a unit test file, timing methods'" \
    "record words in the record layer only, no vendor's version in a public type"
fi
exit $failed
