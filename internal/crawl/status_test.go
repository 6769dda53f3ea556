package crawl

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/claim"
)

// The profile a spider publishes is the one status weighs: every field
// survives the trip through the status's JSON.
func TestStatusCarriesProfile(t *testing.T) {
	for _, p := range []claim.Profile{
		{Name: "fast", Window: time.Hour, Shortest: 30 * time.Minute, Longest: 24 * time.Hour, MaxLevel: 3, Batch: 10},
		{Name: "slow", Window: 24 * time.Hour, Shortest: 1500 * time.Millisecond, Longest: 24 * time.Hour, MaxLevel: -1, Stale: 336 * time.Hour, Batch: 50},
		{Name: "bare", Window: time.Minute, MaxLevel: 0},
	} {
		b, err := json.Marshal(profileStatus(p))
		if err != nil {
			t.Fatal(err)
		}
		var st Status
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		if got := st.ClaimProfile(); got != p {
			t.Errorf("published %+v, read back %+v", p, got)
		}
	}
}
