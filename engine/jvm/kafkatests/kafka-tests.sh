#!/usr/bin/env bash
# kafka-tests.sh: run Kafka's own RocksDB close-leak tests, from the kafka-streams test jar of TESTS_VERSION (default
# 4.3.1, the first release that has them), against the kafka-streams main jar of each of MAIN_VERSIONS (default
# "4.3.0 4.3.1"), each with the rocksdbjni its pom names, beside this module's own tests of the same jars (see
# KAFKA_TEST_CLASSES below), and print one table: test method x main jar -> outcome,
# with every failure's assertion message below it. The outcomes are the finding: the script exits 0 whatever they are,
# and non-zero only when Maven or Java cannot run them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tests_version=${TESTS_VERSION:-4.3.1}
main_versions=${MAIN_VERSIONS:-4.3.0 4.3.1}
pkg=org.apache.kafka.streams.state.internals
# Kafka's own classes first (AbstractColumnFamilyAccessorTest is abstract: its methods run through
# DualColumnFamilyAccessorTest, its one subclass in the test jar), then this module's: the port of Kafka's assertions
# that links against both jars, the restore-path leak, and the implicit cache's capacity.
classes=${KAFKA_TEST_CLASSES:-$pkg.RocksDBStoreCloseLeakTest $pkg.RocksDBMigratingWindowStoreWithHeadersCloseLeakTest $pkg.DualColumnFamilyAccessorTest $pkg.CloseLeakAssertionsPort $pkg.RestoreWriteBatchLeakTest $pkg.ImplicitCacheCapacityTest}
out=$here/target/kafka-tests
mkdir -p "$out"
mvn_() { mvn -B -q -o "$@" >/dev/null 2>&1 || mvn -B -q "$@"; }
mvn_ -f "$here/pom.xml" test-compile
files=()
for v in $main_versions; do
  mvn_ -f "$here/pom.xml" -Dkafka.version="$v" -Dkafka.tests.version="$tests_version" \
    dependency:build-classpath -Dmdep.outputFile="$out/cp-$v.txt"
  cp=$(cat "$out/cp-$v.txt")
  rocks=$(tr ':' '\n' < "$out/cp-$v.txt" | sed -n 's|.*/rocksdbjni-\([0-9.]*\)\.jar$|\1|p')
  label="kafka-streams-$v.jar + rocksdbjni-$rocks"
  echo "== $label, tests from kafka-streams-$tests_version-test.jar" >&2
  (cd "$out" && java -Dkafka.version="$v" -cp "$here/target/classes:$here/target/test-classes:$cp" rocksleak.kafkatests.KafkaTests run "$label" "$out/outcomes-$v.tsv" $classes) > "$out/run-$v.log" 2>&1 \
    || { echo "kafka-tests: the run against $v failed; see $out/run-$v.log" >&2; exit 1; }
  files+=("$out/outcomes-$v.tsv")
done
java -cp "$here/target/classes:$cp" rocksleak.kafkatests.KafkaTests table "${files[@]}"
echo
echo "What the module's own tests printed (full logs: $out/run-<version>.log):"
for v in $main_versions; do
  grep -h -E '^(kafka-streams .*block-cache-capacity|restore failed|leaked WriteBatch)' "$out/run-$v.log" | sed "s/^/  $v: /"
done
