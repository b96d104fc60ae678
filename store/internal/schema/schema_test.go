package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"slices"
	"testing"
)

// released holds the SHA-256 of every migration as it was released, per
// dialect: databases applied exactly these bytes, comments included, so a
// template may change only in ways that render them again. A new
// migration adds its digests here.
var released = map[string]map[string]string{
	"postgresql": {
		"00001_initial.sql": "5f8ecf7efc40530d3120483b732e3e693787030595e2c49c66e8c48beececb23",
		"00002_leases.sql":  "feb2375c1137d7f8d36607c3390566c1c7fb2715f6817eeac1b5a9795febdfd1",
		"00003_blobs.sql":   "d899126ede2d85545892c61f94d5d773ddb7006b482c0ca0a89b86da8ba829d0",
	},
	"sqlite": {
		"00001_initial.sql": "101a46c6641efc535a599a334345815d13971d0cae60680d01430547c7c7003e",
		"00002_leases.sql":  "4b139ac6e5d42f4a41b379b4e21a8360e129d392284e27fb502084070a32782d",
		"00003_blobs.sql":   "6283fd9cea05cc6697a6799cf6ac98c28281d55aec51d181c70d9ac8eb65356b",
	},
}

func TestMigrationsRenderAsReleased(t *testing.T) {
	for name, d := range map[string]Dialect{"postgresql": PostgreSQL, "sqlite": SQLite} {
		fsys, err := Migrations(d)
		if err != nil {
			t.Fatal(err)
		}
		files, err := fs.Glob(fsys, "*")
		if err != nil {
			t.Fatal(err)
		}
		if want := slices.Sorted(maps.Keys(released[name])); !slices.Equal(files, want) {
			t.Fatalf("%s: rendered %v, want %v", name, files, want)
		}
		for _, file := range files {
			b, err := fs.ReadFile(fsys, file)
			if err != nil {
				t.Fatal(err)
			}
			if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != released[name][file] {
				t.Errorf("%s %s is not the released migration; it renders as:\n%s", name, file, b)
			}
		}
	}
}
