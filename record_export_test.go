package veetbrowser

import (
	"testing"

	"github.com/veetbot/veetbrowser/browser"
)

// SharedProvider is the test binary's shared browser, for the tests of the
// external test package (which replay, importing this package, needs).
func SharedProvider(tb testing.TB) browser.Provider { return shared.Get(tb) }

// RefOf is ref, for the external test package.
var RefOf = ref
