package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/spider-mirror/spider/internal/sitetest"
)

// freshChurner applies the changes of scripts/bench-fresh's site (-churn-mix
// fresh), the mix of issue 21, in a rotation of four:
//
//  0. add a topic, announced at the top of the home page's latest list;
//  1. an announced edit: a live topic's body changes and it moves to the
//     top of the latest list, as a "recently updated" list does;
//  2. a silent edit of a topic at level 3 or deeper, announced nowhere;
//  3. delete a topic: it (and its image) answers 404, links to it vanish.
//
// The topics edited and deleted are drawn from a generator seeded with
// seed, so the same seed on the same starting site gives the same changes.
type freshChurner struct {
	site  *sitetest.Site
	rng   *rand.Rand
	n     int // changes applied
	added int
}

func newFreshChurner(site *sitetest.Site, seed uint64) *freshChurner {
	return &freshChurner{site: site, rng: rand.New(rand.NewPCG(seed, 0x5eed))}
}

// step applies the next change and describes it as "added PATH",
// "announced PATH", "edited PATH" or "deleted PATH".
func (c *freshChurner) step() string {
	defer func() { c.n++ }()
	topics := (&churner{site: c.site}).topics()
	switch c.n % 4 {
	case 0:
		c.added++
		return "added " + c.site.AddTopic(fmt.Sprintf("Fresh topic %d", c.added))
	case 1:
		p := topics[c.rng.IntN(len(topics))].path
		c.site.Announce(p)
		return "announced " + p
	case 2:
		deep := (&churner{site: c.site}).deepTopics()
		p := deep[c.rng.IntN(len(deep))]
		c.site.EditTopic(p)
		return "edited " + p
	default:
		if len(topics) < 2 {
			return "none (keeping the last topic)"
		}
		p := topics[c.rng.IntN(len(topics))].path
		c.site.Delete(p)
		return "deleted " + p
	}
}
