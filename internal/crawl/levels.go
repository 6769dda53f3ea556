package crawl

// Levels while fetching ahead. A line's level is the shortest link
// distance from a start URL that the spiders found (list.Add lowers a
// deeper line). Fetching ahead goes deep first (ahead.go), so on a forum
// whose topics link their neighbours it walks the chain of "older topic"
// links ahead of the index pages: a topic, and the index page it links
// back to, are first found many levels too deep, and the links of each
// page fetched then are found too deep in turn. When the index page that
// really leads to a topic is fetched, the topic moves up; the pages found
// under it must move up with it, though they are not fetched again. So
// while it fetches ahead, a spider keeps the graph of what it found: the
// lowest level of every URL, and the links of every page it fetched (with
// whether each is a page, one level down, or a requisite or redirect, at
// the same level). A URL that moves up takes every URL below it along, and
// each one that moved goes to the next pass as an Add at its new level.
//
// Without the graph, many lines of a first mirror end levels too deep,
// differently in every run (TestFirstMirrorLevels).

// linkGraph is that graph. It is not safe for concurrent use: fetching
// ahead (ahead.go) owns it, under the lock of jobs (jobs.go). Memory: about 100 bytes a URL (its map entry and node) and
// 8 a link; past maxSeen URLs or maxGraphLinks links, fetching ahead stops
// and the graph goes (ahead.go).
type linkGraph struct {
	ids   map[string]int32
	nodes []graphNode
	links int
}

// maxGraphLinks bounds the links the graph keeps: 64 MiB of them.
const maxGraphLinks = 1 << 23

type graphNode struct {
	url   string
	level int32
	kids  []graphKid
}

// graphKid is a link of a page: the URL's node and its level minus the
// page's (0 or 1).
type graphKid struct {
	id    int32
	delta int32
}

func newLinkGraph() *linkGraph { return &linkGraph{ids: map[string]int32{}} }

// full reports whether the graph holds as much as it may.
func (g *linkGraph) full() bool { return len(g.nodes) > maxSeen || g.links > maxGraphLinks }

// level returns the lowest level url was found at.
func (g *linkGraph) level(url string) (int, bool) {
	id, ok := g.ids[url]
	if !ok {
		return 0, false
	}
	return int(g.nodes[id].level), true
}

// link notes that the page from, fetched at level fromLevel, links to url
// at level (fromLevel, or fromLevel+1 for a page). It returns whether url
// is new, and its level now: level, or lower if from has moved up since it
// was fetched. moved is called for every URL already known that moved up,
// url included, with its new level. A from the graph does not know adds
// no link (a start URL, or a page found before fetching ahead began).
func (g *linkGraph) link(from string, fromLevel int, url string, level int, moved func(url string, level int)) (isNew bool, now int) {
	pid, hasParent := g.ids[from]
	if hasParent && g.nodes[pid].level > int32(fromLevel) {
		g.lower(pid, int32(fromLevel), moved) // found lower since (a pass claimed it so)
	}
	delta := int32(min(max(level-fromLevel, 0), 1))
	want := int32(level)
	if hasParent {
		want = min(want, g.nodes[pid].level+delta)
	}
	id, known := g.node(url, want)
	if hasParent && pid != id {
		g.nodes[pid].kids = append(g.nodes[pid].kids, graphKid{id, delta})
		g.links++
	}
	if known && want < g.nodes[id].level {
		g.lower(id, want, moved)
	}
	return !known, int(g.nodes[id].level)
}

// claimed notes a line that a pass claimed at level: a URL new to the
// graph, or one that moves up (with what it leads to, reported to moved).
func (g *linkGraph) claimed(url string, level int, moved func(url string, level int)) {
	if id, known := g.node(url, int32(level)); known && int32(level) < g.nodes[id].level {
		g.lower(id, int32(level), moved)
	}
}

// node returns url's node, made at level if the graph did not know url.
func (g *linkGraph) node(url string, level int32) (id int32, known bool) {
	if id, known = g.ids[url]; known {
		return id, true
	}
	id = int32(len(g.nodes))
	g.ids[url] = id
	g.nodes = append(g.nodes, graphNode{url: url, level: level})
	return id, false
}

// lower moves id up to level and every URL below it up as far as its links
// allow, breadth first (a forum's chains are thousands of links long). A
// URL reached by two paths may move, and be reported, twice; the list
// keeps the lowest.
func (g *linkGraph) lower(id, level int32, moved func(url string, level int)) {
	g.nodes[id].level = level
	moved(g.nodes[id].url, int(level))
	queue := []int32{id}
	for len(queue) > 0 {
		n := &g.nodes[queue[0]]
		queue = queue[1:]
		for _, k := range n.kids {
			if kid := &g.nodes[k.id]; n.level+k.delta < kid.level {
				kid.level = n.level + k.delta
				moved(kid.url, int(kid.level))
				queue = append(queue, k.id)
			}
		}
	}
}
