package userapp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// ResolveMaven resolves the app's Maven coordinates with their runtime dependencies into jar paths, appended to
// a.Job.Classpath. Kafka's artifacts (org.apache.kafka) and RocksJava (org.rocksdb) are left out: the run puts its
// own version beside the application. The classpath is resolved once into cacheDir/app-classpath-<digest>.txt and
// read from there after; Maven (mvn, or $MVN) runs offline first and goes online only for what ~/.m2 lacks, as
// make jvm does for Kafka's versions. The error names the coordinates and Maven's last words.
func (a *App) ResolveMaven(cacheDir string) error {
	if len(a.Maven) == 0 {
		return nil
	}
	coords := append([]string(nil), a.Maven...)
	sort.Strings(coords)
	sum := sha256.Sum256([]byte(strings.Join(coords, "\n")))
	file := filepath.Join(cacheDir, "app-classpath-"+hex.EncodeToString(sum[:8])+".txt")
	if b, err := os.ReadFile(file); err == nil {
		return a.addClasspath(string(b))
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "rocksleak-app-maven-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	pom := filepath.Join(dir, "pom.xml")
	if err := os.WriteFile(pom, []byte(pomOf(coords)), 0o644); err != nil {
		return err
	}
	mvn := os.Getenv("MVN")
	if mvn == "" {
		mvn = "mvn"
	}
	tmp := file + ".tmp"
	args := []string{"-q", "-B", "-f", pom, "dependency:build-classpath", "-Dmdep.includeScope=runtime", "-Dmdep.outputFile=" + tmp}
	out, err := exec.Command(mvn, append([]string{"-o"}, args...)...).CombinedOutput()
	if err != nil {
		out, err = exec.Command(mvn, args...).CombinedOutput()
	}
	if err != nil {
		return fmt.Errorf("maven: resolving %s: %v: %s", strings.Join(coords, ", "), err, lastLines(string(out), 3))
	}
	b, err := os.ReadFile(tmp)
	if err != nil {
		return fmt.Errorf("maven: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return err
	}
	return a.addClasspath(string(b))
}

func (a *App) addClasspath(line string) error {
	for _, p := range strings.Split(strings.TrimSpace(line), string(os.PathListSeparator)) {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("maven: %s, resolved before, is gone (remove the app-classpath file to resolve again): %w", p, err)
		}
		a.Job.Classpath = append(a.Job.Classpath, p)
	}
	if len(a.Job.Classpath) == 0 {
		return fmt.Errorf("maven: %s resolved to no jar", strings.Join(a.Maven, ", "))
	}
	return nil
}

// pomOf is a project depending on the coordinates, without Kafka's artifacts and RocksJava.
func pomOf(coords []string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>rocksleak.app</groupId><artifactId>classpath</artifactId><version>1</version><packaging>pom</packaging>
<build><plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>3.6.1</version></plugin></plugins></build>
<dependencies>
`)
	for _, c := range coords {
		p := strings.Split(c, ":")
		typ := ""
		if len(p) == 4 {
			typ = "<type>" + html.EscapeString(p[2]) + "</type>"
		}
		fmt.Fprintf(&b, "<dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version>%s"+
			"<exclusions><exclusion><groupId>org.apache.kafka</groupId><artifactId>*</artifactId></exclusion>"+
			"<exclusion><groupId>org.rocksdb</groupId><artifactId>*</artifactId></exclusion></exclusions></dependency>\n",
			html.EscapeString(p[0]), html.EscapeString(p[1]), html.EscapeString(p[len(p)-1]), typ)
	}
	b.WriteString("</dependencies></project>\n")
	return b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
