// Package browsetest checks, in a real browser, that a mirror built by the
// spider can be browsed from disk: headless Chromium opens the mirror root's
// index.html from file://, follows links two levels deep, and every page
// must load with its images and style sheets, show the archive banner where
// a page was removed, and make no request outside file://. Links to URLs
// served with another type than their names suggest must reach their
// copies from disk too (TestLinkToUnguessedType).
//
// The package has no code besides its test. The test needs Chromium
// (Debian's chromium package; scripts/test installs it): without it the test
// fails with a hint, it does not skip. Screenshots of a mirrored page and of
// an archived page are saved under $SPIDER_ARTIFACTS, or
// internal/browsetest/testdata/artifacts (ignored by git), and their paths
// logged.
package browsetest
