module github.com/spider-mirror/spider

go 1.26.0

require (
	github.com/BurntSushi/toml v1.5.0
	github.com/gofrs/flock v0.13.1
	github.com/nlnwa/whatwg-url v0.6.2
	github.com/spf13/pflag v1.0.10
	golang.org/x/net v0.62.0
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
	golang.org/x/text v0.43.0
)

require github.com/bits-and-blooms/bitset v1.20.0 // indirect
