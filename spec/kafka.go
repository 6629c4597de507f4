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

// CompareKafkaVersions orders two Kafka versions (KafkaVersion's form):
// numerically by major, minor and patch, and a qualified version ("4.4.0-rc1")
// before its release ("4.4.0"), qualifiers by their text. It returns -1, 0
// or +1.
func CompareKafkaVersions(a, b string) int {
	na, qa, _ := strings.Cut(a, "-")
	nb, qb, _ := strings.Cut(b, "-")
	pa, pb := strings.Split(na, "."), strings.Split(nb, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, y := strings.TrimLeft(pa[i], "0"), strings.TrimLeft(pb[i], "0")
		if len(x) != len(y) {
			return cmpInt(len(x), len(y))
		}
		if c := strings.Compare(x, y); c != 0 {
			return c
		}
	}
	if c := cmpInt(len(pa), len(pb)); c != 0 {
		return c
	}
	switch {
	case qa == qb:
		return 0
	case qa == "":
		return 1
	case qb == "":
		return -1
	}
	return strings.Compare(qa, qb)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
