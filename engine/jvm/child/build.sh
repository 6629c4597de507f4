#!/usr/bin/env bash
# Builds the JVM child (engine/jvm/child) and, per Kafka version, the classpath it runs with, into an output directory:
#   <out>/rocksleak-child.jar           the child's classes, Main-Class in the manifest
#   <out>/classpath-<version>.txt       one line, ':'-separated: kafka-streams and kafka-streams-test-utils of that
#                                       version, the rocksdbjni its pom names, JNA, Jackson, slf4j-nop
#   <out>/profiler/                     rocksleak run --profile on the JVM engine (engine/jvm/child/profiler.sh):
#                                       libasyncProfiler.so, async-profiler.jar, jfr-converter.jar
# Usage: engine/jvm/child/build.sh [-t] <out-dir> <version>...
#   -t: run the child's JUnit tests: against the jars it compiles against (4.3.1) first, then, for each listed
#       version before 4.3 (no StateStore.commit(Map), no AbstractSegments.createSegment), the same test classes
#       against that version's classpath in place of Kafka's and RocksJava's jars (surefire:test).
# Maven runs offline (-o) first and goes online only when ~/.m2 lacks something: it resolves once. The offline
# attempt's output is kept to itself (a first build's offline miss prints ~28 [ERROR] lines that are not errors);
# it is shown only if the online attempt fails too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tests=no
if [ "${1:-}" = "-t" ]; then tests=yes; shift; fi
[ $# -ge 2 ] || { echo "usage: $0 [-t] <out-dir> <kafka-version>..." >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd); shift
mvn=${MVN:-mvn}
flags=(-q -B -Dstyle.color=never -f "$here/pom.xml")
mvn_label=jvm/child
# Maven offline first, its failed attempt's [ERROR] lines kept to itself (scripts/mvn-offline-first.sh: mvn_run).
. "$here/../../../scripts/mvn-offline-first.sh"
if [ "$tests" = yes ]; then mvn_run package; else mvn_run package -DskipTests; fi
cp "$here/target/rocksleak-child.jar" "$out/rocksleak-child.jar"
MVN="$mvn" "$here/profiler.sh" "$out/profiler"
for v in "$@"; do
  mvn_run dependency:build-classpath -Dkafka.version="$v" -Dmdep.outputFile="$out/classpath-$v.txt"
  echo "engine/jvm/child: $out/classpath-$v.txt"
done
if [ "$tests" = yes ]; then
  for v in "$@"; do
    case "$v" in
      4.[012].*)
        echo "engine/jvm/child: tests against kafka-streams $v's classpath"
        mvn_run surefire:test -Dmaven.test.dependency.excludes=org.apache.kafka:kafka-streams,org.apache.kafka:kafka-streams-test-utils,org.apache.kafka:kafka-clients,org.rocksdb:rocksdbjni \
          -Dmaven.test.additionalClasspath="$(tr : , < "$out/classpath-$v.txt")" ;;
    esac
  done
fi
