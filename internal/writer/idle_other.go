//go:build !linux

package writer

import "syscall"

// idleSupported reports whether this system has an idle scheduling class
// a process can put itself in: not one this package knows.
const idleSupported = false

func setIdle() bool { return false }

func helperAttr() *syscall.SysProcAttr { return nil }
