package mirror

import "golang.org/x/sys/unix"

// syncFS commits every dirty file and name of the mirror's file system to
// disk with syncfs(2), which reports write-back errors since Linux 5.8.
func (m *Mirror) syncFS() error {
	d, err := m.root.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	rc, err := d.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Syncfs(int(fd)) }); err != nil {
		return err
	}
	return serr
}
