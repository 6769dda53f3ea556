//go:build !linux

package mirror

import (
	"errors"
	"os"
)

// fastSync is Linux's (write_linux.go): elsewhere every group fsyncs each
// of its files and directories, and names its temp files.
type fastSync struct{}

func (*fastSync) open(*os.Root) {}

func (*fastSync) close() {}

func (*fastSync) whole(int) bool { return false }

func (*fastSync) epoch() uint64 { return 0 }

func (*fastSync) group(int, uint64) bool { return false }

func (*fastSync) prepare(*dir) {}

func (*fastSync) createUnnamed(*dir) *os.File { return nil }

func (*fastSync) link(*temp) error { return errors.ErrUnsupported }
