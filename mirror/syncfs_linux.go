package mirror

import (
	"errors"

	"golang.org/x/sys/unix"
)

// syncFS commits every dirty file and name of the mirror's file system to
// disk with syncfs(2), which reports write-back errors since Linux 5.8:
// those since the descriptor it is given was opened, so it is given the
// one Open opened (m.syncf), not a new one, which would miss an error of a
// write-back that ran between a file's write and the sync.
func (m *Mirror) syncFS() error {
	if m.syncf == nil {
		return errors.New("mirror: no descriptor to sync through")
	}
	rc, err := m.syncf.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Syncfs(int(fd)) }); err != nil {
		return err
	}
	return serr
}
