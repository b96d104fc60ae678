package conformance

import (
	"testing"

	"github.com/veetbot/veetbrowser/internal/browsertest"
)

// TestMain gives the tests a private TMPDIR and XDG_DATA_HOME and fails
// them if a provider leaves anything behind there.
func TestMain(m *testing.M) { browsertest.Main(m) }
