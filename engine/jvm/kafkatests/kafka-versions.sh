#!/usr/bin/env bash
# kafka-versions.sh: resolve every Kafka version in engine/jvm/kafkaversions/versions.tsv with Maven (kafka-streams and the
# rocksdbjni its pom names), then check each row against its pom, Maven's resolution and the bytecode of its jar
# (javap), and print the table as read from the jars. Exit 0 when the table matches, 1 on a mismatch, 2 on bad input.
# Maven runs offline (-o) when everything is in ~/.m2 already and online once otherwise; a version's classpath, once
# resolved, is kept in target/versions/cp-<version>.txt and reused while its jars are in ~/.m2.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
table=${1:-$here/../kafkaversions/versions.tsv}
out=$here/target/versions
mkdir -p "$out"
mvn_() { mvn -B -q -o "$@" >/dev/null 2>&1 || mvn -B -q "$@"; }
versions=$(grep -v -e '^#' -e '^kafka_version' -e '^[[:space:]]*$' "$table" | cut -f1)
[ -n "$versions" ] || { echo "kafka-versions: $table has no rows" >&2; exit 2; }
for v in $versions; do
  # A released version resolves the same way every time: reuse a classpath whose every jar is still in ~/.m2.
  if [ -s "$out/cp-$v.txt" ] && tr ':' '\n' < "$out/cp-$v.txt" | while read -r j; do [ -f "$j" ] || exit 1; done; then
    continue
  fi
  mvn_ -f "$here/versions.pom.xml" -Dkafka.version="$v" dependency:build-classpath -Dmdep.outputFile="$out/cp-$v.txt" \
    || { echo "kafka-versions: Maven could not resolve org.apache.kafka:kafka-streams:$v" >&2; exit 2; }
done
mvn_ -f "$here/pom.xml" compile
java -cp "$here/target/classes" rocksleak.kafkatests.VersionsCheck "$table" "$out"
