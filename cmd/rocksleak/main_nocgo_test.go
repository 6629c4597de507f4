//go:build !cgo

package main

import (
	"os"
	"testing"
)

// TestMain of a test binary built without cgo: the tests, then buildBinary's
// directory removed (main_test.go's TestMain does the same with cgo).
func TestMain(m *testing.M) {
	code := m.Run()
	removeBuiltBinaries()
	os.Exit(code)
}
