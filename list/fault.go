package list

// fault, when a test sets it, is called before every write, fsync,
// truncate and rename the package makes to the list and its journal; an
// error it returns stands for that operation failing (disk full, I/O error).
var fault func(op string) error

func check(op string) error {
	if fault != nil {
		return fault(op)
	}
	return nil
}

// readSeam, when a test sets it, is called by a reader without the lock
// (snapshot.go) between reading the journal and reading a block: where a
// pass running meanwhile can change what the block holds.
var readSeam func()
