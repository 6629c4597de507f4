#!/usr/bin/env bash
# Builds rocksleak's example applications (examples/java) into <out>/rocksleak-examples.jar: the classes the app
# files of examples/apps name (docs/your-application.md). Maven runs offline (-o) first and goes online only when
# ~/.m2 lacks something; the offline attempt's errors are shown only if the online one fails too.
# Usage: examples/java/build.sh <out-dir>
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 <out-dir>" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
mvn=${MVN:-mvn}
flags=(-q -B -Dstyle.color=never -f "$here/pom.xml")
mvn_label=examples/java
# Maven offline first, its failed attempt's [ERROR] lines kept to itself (scripts/mvn-offline-first.sh: mvn_run).
. "$here/../../scripts/mvn-offline-first.sh"
mvn_run package
cp "$here/target/rocksleak-examples.jar" "$out/rocksleak-examples.jar"
echo "examples/java: $out/rocksleak-examples.jar"
