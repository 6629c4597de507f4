package main

import (
	"github.com/rocksleak/rocksleak/internal/units"
)

// signedBytes and humanBytes: bytes for people (see package bytesize).
func signedBytes(b int64) string  { return units.FormatSignedBytes(float64(b)) }
func humanBytes(b float64) string { return units.FormatBytes(b) }
