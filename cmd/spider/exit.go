package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Exit codes, also listed in --help.
const (
	exitOK      = 0 // done, stopped by a signal, or another spider of the profile already runs
	exitFailure = 1 // a runtime failure: list damaged, mirror not writable, ...
	exitUsage   = 2 // a bad flag, profile, config key or value

	exitSecondSignal = 130 // a second SIGINT (Ctrl-C) during the graceful stop
)

// usageErr is a mistake in how spider was called, with a hint to fix it.
type usageErr struct {
	err  error
	hint string
}

func (e usageErr) Error() string { return e.err.Error() }
func (e usageErr) Unwrap() error { return e.err }

// flagErr is the usage error of flags of command cmd ("spider status")
// that did not parse: a duration's says how durations are written, any
// other's points at the command's help.
func flagErr(err error, cmd string) usageErr {
	if strings.Contains(err.Error(), "time: ") { // time.ParseDuration's, as pflag wraps it
		return usageErr{err, "durations are written as 90s, 10m or 1h30m (units ms, s, m, h)"}
	}
	return usageErr{err, cmd + " --help lists the flags"}
}

// hintErr is a runtime failure with a known fix.
type hintErr struct {
	err  error
	hint string
}

func (e hintErr) Error() string { return e.err.Error() }
func (e hintErr) Unwrap() error { return e.err }

// report prints err for a person and returns the exit code.
func report(w io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(w, "spider: error: %v\n", err)
	var ue usageErr
	var he hintErr
	switch {
	case errors.As(err, &ue):
		if ue.hint != "" {
			fmt.Fprintf(w, "spider: hint: %s\n", ue.hint)
		}
		return exitUsage
	case errors.As(err, &he):
		if he.hint != "" {
			fmt.Fprintf(w, "spider: hint: %s\n", he.hint)
		}
	}
	return exitFailure
}
