package userapp

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The files that say which Kafka a jar or class directory holds: each Kafka jar carries its version in a
// properties file (kept by a shaded "fat" jar too).
var kafkaVersionFiles = map[string]string{
	"kafka/kafka-streams-version.properties": "kafka-streams",
	"kafka/kafka-version.properties":         "kafka-clients",
}

// A Kafka or RocksJava jar named as Maven names it.
var kafkaJarName = regexp.MustCompile(`^(kafka-streams|kafka-clients|kafka-streams-test-utils|rocksdbjni)-(\d+\.\d+\.\d+[^/]*)\.jar$`)

// CheckClasspath finds, in the application's classpath, a Kafka Streams, Kafka clients or RocksJava of another
// version than the run's: kafka the Kafka version asked for, rocksdb the rocksdbjni version of its classpath ("" if
// not known). The error names the entry, what it holds and how to fix it.
func CheckClasspath(classpath []string, kafka, rocksdb string) error {
	for _, e := range classpath {
		found, err := versionsIn(e)
		if err != nil {
			return fmt.Errorf("app.classpath: %s: %w", e, err)
		}
		for what, v := range found {
			want := kafka
			if what == "rocksdbjni" {
				want = rocksdb
			}
			if want != "" && v != want {
				return fmt.Errorf("app.classpath: %s holds %s %s, but the run asks for Kafka %s (%s %s): leave "+
					"Kafka out of the application's classpath (Maven scope provided) or run on Kafka %s "+
					"(--models kafka-%s)", e, what, v, kafka, what, want, v, v)
			}
		}
	}
	return nil
}

// versionsIn reads which Kafka artifacts a classpath entry holds, by version.
func versionsIn(entry string) (map[string]string, error) {
	found := map[string]string{}
	if m := kafkaJarName.FindStringSubmatch(filepath.Base(entry)); m != nil {
		found[strings.TrimSuffix(m[1], "-test-utils")] = m[2]
	}
	st, err := os.Stat(entry)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		for f, what := range kafkaVersionFiles {
			if b, err := os.ReadFile(filepath.Join(entry, f)); err == nil {
				if v := versionOf(strings.NewReader(string(b))); v != "" {
					found[what] = v
				}
			}
		}
		return found, nil
	}
	z, err := zip.OpenReader(entry)
	if err != nil {
		return nil, fmt.Errorf("not a jar: %w", err)
	}
	defer z.Close()
	for _, f := range z.File {
		what, ok := kafkaVersionFiles[f.Name]
		if !ok {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return nil, err
		}
		if v := versionOf(r); v != "" {
			found[what] = v
		}
		r.Close()
	}
	return found, nil
}

// versionOf reads "version=..." from a Kafka version properties file.
func versionOf(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "version="); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// RocksDBVersionOf reads the rocksdbjni version from a Kafka classpath (its jar's Maven file name), "" if none.
func RocksDBVersionOf(classpath []string) string {
	for _, e := range classpath {
		if m := kafkaJarName.FindStringSubmatch(filepath.Base(e)); m != nil && m[1] == "rocksdbjni" {
			return m[2]
		}
	}
	return ""
}
