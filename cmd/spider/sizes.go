package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/spider-mirror/spider/internal/meta"
	"github.com/spider-mirror/spider/internal/pglist"
)

// FileSizes are the sizes of the list and of the files a list keeps beside
// it, so that their growth can be watched; 0 for one that does not exist.
type FileSizes struct {
	// Database is, for a list in PostgreSQL, its schema: list, meta and
	// hosts_d are then the sizes of its tables (lines, history, hosts),
	// and journal is 0. "" for a file.
	Database string `json:"database,omitempty"`
	// State is, for a list in PostgreSQL, the local directory of this
	// machine's files of the list (account series, mirror record).
	State   string `json:"state,omitempty"`
	List    int64  `json:"list"`
	Meta    int64  `json:"meta"`    // LIST.meta: every URL's fetch history (bbolt, grows in steps)
	HostsD  int64  `json:"hosts_d"` // LIST.hosts.d: each host's pace, all files together
	Journal int64  `json:"journal"` // LIST.journal: empty between passes
}

// sizesOf returns the sizes of the open list l: its files, or for a list
// in PostgreSQL its tables.
func sizesOf(ctx context.Context, l listStore) (FileSizes, error) {
	s, ok := l.(*pglist.Store)
	if !ok {
		return fileSizes(l.StatePath()), nil
	}
	z, err := s.Sizes(ctx)
	if err != nil {
		return FileSizes{}, err
	}
	return FileSizes{Database: s.Schema(), State: filepath.Dir(l.StatePath()), List: z.Lines, Meta: z.History, HostsD: z.Hosts}, nil
}

// fileSizes returns the sizes of the list at path and of its files.
func fileSizes(path string) FileSizes {
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	fs := FileSizes{List: size(path), Meta: size(path + meta.Suffix), Journal: size(path + ".journal")}
	if es, err := os.ReadDir(path + ".hosts.d"); err == nil {
		for _, e := range es {
			if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
				fs.HostsD += fi.Size()
			}
		}
	}
	return fs
}
