package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rocksleak/rocksleak/schema"
)

// Files is the set of files of one run directory, by name, in memory.
type Files map[string][]byte

// Render builds the run directory's files: result.json, samples.csv,
// report.md and the PNG plots.
func Render(r *schema.Result, out *schema.Output) (Files, error) {
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	csvb, err := SamplesCSV(out)
	if err != nil {
		return nil, err
	}
	files := Files{"result.json": append(js, '\n'), "samples.csv": csvb, "report.md": ReportMarkdown(r)}
	plots, err := Plots(r, schema.SamplesByModel(out))
	if err != nil && !errors.Is(err, ErrNoSamples) {
		return nil, err
	}
	for name, b := range plots {
		files[name] = b
	}
	return files, nil
}

// SamplesCSV renders one row per sample per model, with a live_<kind> column
// for every ledger kind seen in the run.
func SamplesCSV(out *schema.Output) ([]byte, error) {
	kinds := schema.LedgerKinds(out.Runs)
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(schema.CSVHeader(kinds)); err != nil {
		return nil, err
	}
	for _, s := range schema.AllSamples(out) {
		if err := w.Write(s.CSVRow(kinds)); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// WriteDir writes files into dir atomically: everything goes to a temporary
// sibling directory first, which is renamed into place, so dir is either
// absent or complete. An existing dir is refused.
func WriteDir(dir string, files Files) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("output directory %s already exists", dir)
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for name, b := range files {
		if err := writeFileSync(filepath.Join(tmp, name), b); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// WriteFileAtomic replaces path with b via a temporary file and a rename.
func WriteFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func writeFileSync(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
