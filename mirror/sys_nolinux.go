//go:build !linux

package mirror

import (
	"errors"
	"os"
)

// Elsewhere a Group goes through os.Root and names its temp files (see
// sys_linux.go).

func openBeneath(*os.File, string) (*os.File, bool, error) { return nil, false, nil }

func mkdirBeneath(*os.File, string) (*os.File, bool, error) { return nil, false, nil }

func createAnon(*os.File) (*os.File, error) { return nil, errors.ErrUnsupported }

func linkAnon(_, _ *os.File, _ string) error { return errors.ErrUnsupported }

func removeAt(*os.File, string) error { return errors.ErrUnsupported }
