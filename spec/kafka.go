package spec

import (
	"regexp"
	"strings"
)

// KafkaPrefix starts the name of a model the JVM engine runs: "kafka-<version>"
// is Kafka Streams' own released jars of that version
// (org.apache.kafka:kafka-streams from Maven Central, with the rocksdbjni its
// pom names), run by the JVM child, where the Go engine's models are
// re-implementations of Kafka's ownership code on grocksdb.
const KafkaPrefix = "kafka-"

// kafkaVersion is a Maven version of Kafka: major.minor.patch, optionally a
// qualifier ("4.3.0", "4.4.0-rc1").
var kafkaVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$`)

// KafkaVersion returns the Kafka version a "kafka-<version>" model name names;
// ok is false when model is not such a name. It checks the version's form,
// not that Maven Central serves it (the JVM engine's build does).
func KafkaVersion(model string) (version string, ok bool) {
	v, found := strings.CutPrefix(model, KafkaPrefix)
	if !found || !kafkaVersion.MatchString(v) {
		return "", false
	}
	return v, true
}
