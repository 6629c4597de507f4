# Sourced by engine/jvm/child/build.sh and examples/java/build.sh (bash). Defines:
#   mvn_run ARGS...  runs "$mvn" "${flags[@]}" ARGS offline (-o) first and online only when that fails, printing the
#                    offline attempt's output only when it succeeds: when ~/.m2 lacks something it fails with Maven's
#                    [ERROR] lines about the missing artifacts, which the online attempt then resolves; they are not
#                    errors of the build. When the online attempt fails too, the offline attempt's output follows its
#                    own, after "$mvn_label: the offline attempt before it said:". Returns the online attempt's status.
#   plain            a filter dropping the bare colour resets (ESC[0m) Maven 3.8's quiet mode still writes though
#                    style.color is never.
# The caller sets mvn (the Maven command), flags (an array) and mvn_label (its name in messages).
mvn_run() {
  local log rc=0
  log=$(mktemp)
  if "$mvn" "${flags[@]}" -o "$@" >"$log" 2>&1; then plain <"$log"; rm -f "$log"; return 0; fi
  "$mvn" "${flags[@]}" "$@" 2>&1 | plain || rc=$?
  if [ "$rc" -ne 0 ]; then echo "$mvn_label: the offline attempt before it said:" >&2; plain <"$log" >&2; fi
  rm -f "$log"
  return "$rc"
}
plain() { sed 's/\x1b\[[0-9;]*m//g'; }
