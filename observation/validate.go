package observation

import (
	"fmt"

	"github.com/veetbot/veetbrowser/errcode"
)

// Validate is admission: the checks every observation passes before it is
// published. A failure means the observation is refused whole.
func Validate(o *Observation) error {
	fail := func(format string, args ...any) error {
		return errcode.Wrap(errcode.CaptureFailed, fmt.Errorf(format, args...), "the observation failed admission")
	}
	if len(o.Controls) > MaxControls {
		return fail("%d controls", len(o.Controls))
	}
	if len(o.Regions) > MaxRegions {
		return fail("%d regions", len(o.Regions))
	}
	if len(o.Regions) > 0 && o.RegionCoverage == nil {
		return fail("regions without coverage")
	}
	refs := make(map[string]bool, len(o.Controls)+len(o.Regions)+1)
	refs[o.Revision] = true
	for _, c := range o.Controls {
		if refs[c.Ref] {
			return fail("duplicate control ref")
		}
		refs[c.Ref] = true
	}
	for _, g := range o.Regions {
		if refs[g.Ref] {
			return fail("region ref %s duplicates or aliases another ref", g.Ref)
		}
		refs[g.Ref] = true
	}
	if f := o.Find; f != nil && (len(f.Matches) > FindMatches || len(o.Controls) > FindMatches) {
		return fail("a find of %d controls and %d text matches", len(o.Controls), len(f.Matches))
	}
	if o.TextCoverage != nil {
		if total := o.TextCost(); total > TextBytes {
			return fail("captured text of %d bytes with omissions, more than %d", total, TextBytes)
		}
	}
	return nil
}
