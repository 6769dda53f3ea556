//go:build !linux

package mirror

import "errors"

// syncFS is not available: Commit fsyncs each file and directory instead.
func (m *Mirror) syncFS() error { return errors.New("no syncfs") }
