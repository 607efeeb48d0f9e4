// Package browser holds the web client's tests: real headless Chromium,
// driven over the DevTools protocol, against a real azuld server on a
// real PostgreSQL. The package has no code of its own.
//
// The test binary starts one Chromium, on first use, and every test opens
// its players' tabs in it, each in a browser context of its own (cookies,
// storage and cache apart). Each test has a server and a database of its
// own, so the tests run beside each other: every test calls parallel
// first, which starts them in the order they are declared, four at a time
// unless -parallel says otherwise. A wait for the page (waitJS) looks at
// the page from within the page, without a round trip per look.
package browser
