package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// churner applies the demo's changes in a fixed rotation, each one aimed at
// a different part of the two-spider design:
//
//  0. add a topic: announced on the home page, so the fast spider finds it;
//  1. silently edit a deep topic (level 3 or more, out of reach of a fast
//     spider limited to fastDepth): only the slow spider's full pass picks
//     it up;
//  2. delete the median topic by number: it answers 404, links to it vanish,
//     and the topics after it shift between index pages.
//
// Given the same starting site the sequence of changes is deterministic.
type churner struct {
	site  *sitetest.Site
	n     int // changes applied
	added int
	edits int
}

// step applies the next change and describes it as "added PATH",
// "edited PATH" or "deleted PATH".
func (c *churner) step() string {
	defer func() { c.n++ }()
	switch c.n % 3 {
	case 0:
		c.added++
		return "added " + c.site.AddTopic(fmt.Sprintf("Churn topic %d", c.added))
	case 1:
		deep := c.deepTopics()
		if len(deep) == 0 {
			return "none (no topic to edit)"
		}
		// Successive edits walk through the deep topics in turn.
		p := deep[c.edits%len(deep)]
		c.edits++
		c.site.EditTopic(p)
		return "edited " + p
	default:
		topics := c.topics()
		if len(topics) < 2 {
			return "none (keeping the last topic)"
		}
		p := topics[len(topics)/2].path
		c.site.Delete(p)
		return "deleted " + p
	}
}

// fastDepth is the depth limit of the fast spider the demo has in mind.
const fastDepth = 2

type topicRef struct {
	id    int
	path  string
	level int
}

// topics returns the live topic pages (articles), by topic number.
func (c *churner) topics() []topicRef {
	var out []topicRef
	for p, l := range c.site.Levels() {
		rest, ok := strings.CutPrefix(p, "/topic/")
		if !ok {
			rest, ok = strings.CutPrefix(p, "/article/") // the articles shape
		}
		if !ok || strings.Contains(rest, "/") {
			continue
		}
		num, _, _ := strings.Cut(rest, "-")
		id, err := strconv.Atoi(num)
		if err != nil {
			continue
		}
		out = append(out, topicRef{id, p, l})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// deepTopics returns the paths of the topics a crawler limited to depth
// fastDepth cannot reach (level 3 and deeper), by topic number; on a site too
// small to have any, the topics at the deepest level.
func (c *churner) deepTopics() []string {
	topics := c.topics()
	deepest := 0
	for _, t := range topics {
		deepest = max(deepest, t.level)
	}
	floor := min(fastDepth+1, deepest)
	var out []string
	for _, t := range topics {
		if t.level >= floor {
			out = append(out, t.path)
		}
	}
	return out
}
