package crawl

// Temporary until the mirror's one write path lands (mirror.WriteAll).

import (
	"github.com/spider-mirror/spider/internal/writer"
	"github.com/spider-mirror/spider/mirror"
)

type mirrorFile = writer.File

func writeAll(m *mirror.Mirror, files []mirrorFile) []error { return writer.Local(m).Commit(files) }
