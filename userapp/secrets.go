package userapp

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/magiconair/properties"
)

// RedactedMark replaces a secret wherever it would be written.
const RedactedMark = "[redacted]"

// IsSecret says whether a Kafka property's value is a secret: sasl.jaas.config and every sasl.* and ssl.* key
// (also under a client prefix such as producer.ssl.*), and every key whose last part names a password, secret,
// credential or token, or that ends in user.info. The JVM child applies the same rule (AppRedactor).
func IsSecret(key string) bool {
	k := strings.ToLower(key)
	last := k[strings.LastIndex(k, ".")+1:]
	return strings.HasPrefix(k, "sasl.") || strings.HasPrefix(k, "ssl.") || strings.Contains(k, ".sasl.") ||
		strings.Contains(k, ".ssl.") || strings.Contains(last, "password") || strings.Contains(last, "secret") ||
		strings.Contains(last, "credential") || strings.Contains(last, "token") || strings.HasSuffix(k, "user.info") ||
		last == "jaas"
}

// Redactor replaces every secret value of a properties file by RedactedMark.
type Redactor struct{ secrets []string }

// NewRedactor reads the properties file (Java's format) and keeps its secret values, longest first.
func NewRedactor(path string) (*Redactor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// As java.util.Properties reads it: ISO-8859-1, no ${...} expansion.
	p, err := (&properties.Loader{Encoding: properties.ISO_8859_1, DisableExpansion: true}).LoadBytes(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := &Redactor{}
	for _, k := range p.Keys() {
		if v, _ := p.Get(k); IsSecret(k) && v != "" {
			r.secrets = append(r.secrets, v)
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r, nil
}

// Redact returns s with every secret replaced.
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	for _, v := range r.secrets {
		s = strings.ReplaceAll(s, v, RedactedMark)
	}
	return s
}

// Writer returns a writer that passes whole lines to w with the secrets replaced (a secret split across two
// writes is still found); Close writes what is left of a last line.
func (r *Redactor) Writer(w io.Writer) io.WriteCloser { return &lineRedactor{r: r, w: w} }

type lineRedactor struct {
	mu  sync.Mutex
	r   *Redactor
	w   io.Writer
	buf []byte
}

func (l *lineRedactor) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		if _, err := io.WriteString(l.w, l.r.Redact(string(l.buf[:i+1]))); err != nil {
			return len(p), err
		}
		l.buf = l.buf[i+1:]
	}
	return len(p), nil
}

func (l *lineRedactor) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) == 0 {
		return nil
	}
	_, err := io.WriteString(l.w, l.r.Redact(string(l.buf)))
	l.buf = nil
	return err
}
