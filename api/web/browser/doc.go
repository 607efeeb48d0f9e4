// Package browser holds the web client's tests: real headless Chromium,
// driven over the DevTools protocol, against a real azuld server on a
// real PostgreSQL. The package has no code of its own.
package browser
