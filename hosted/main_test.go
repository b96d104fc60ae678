package hosted_test

import (
	"testing"

	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// TestMain gives the benchmarks a private TMPDIR and XDG_DATA_HOME and
// fails them if a browser or store leaves anything behind there.
func TestMain(m *testing.M) { browsertest.Main(m) }
