package main

import "runtime/debug"

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise it comes from the module's build info.
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// userAgent is the default User-Agent of spider id.
func userAgent(id string) string {
	return "spider/" + versionString() + " (+https://github.com/spider-mirror/spider; " + id + ")"
}
