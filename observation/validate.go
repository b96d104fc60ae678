package observation

import (
	"fmt"
	"slices"

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
	if b := o.Blocked; b != nil && (len(b.Origins) > MaxBlockedOrigins || b.Total < b.OtherRequests) {
		return fail("a blocked record of %d origins", len(b.Origins))
	}
	refs := make(map[string]bool, len(o.Controls)+len(o.Regions)+1)
	refs[o.Revision] = true
	for _, c := range o.Controls {
		if refs[c.Ref] {
			return fail("duplicate control ref")
		}
		refs[c.Ref] = true
		if c.Value != nil && UTF16Len(*c.Value) > MaxValueUnits {
			return fail("a control value of %d units", UTF16Len(*c.Value))
		}
		if c.Value == nil && c.ValueTruncated {
			return fail("a value cut without a value")
		}
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
	if err := validateFrames(o); err != nil {
		return fail("%v", err)
	}
	return nil
}

// validateFrames checks the frame records (tool version 1.7.0) and that
// every control, region and text part names a frame whose content the
// observation holds, with each frame's counts matching what names it.
func validateFrames(o *Observation) error {
	if len(o.Frames) > MaxFrameRecords {
		return fmt.Errorf("%d frame records, more than %d", len(o.Frames), MaxFrameRecords)
	}
	if o.FramesOmitted < 0 {
		return fmt.Errorf("frames_omitted %d", o.FramesOmitted)
	}
	collected := 0
	for i, f := range o.Frames {
		if f.Index != i+1 {
			return fmt.Errorf("frame record %d has index %d", i+1, f.Index)
		}
		if f.Parent < 0 || f.Parent >= f.Index {
			return fmt.Errorf("frame %d has parent %d", f.Index, f.Parent)
		}
		parentDepth := 0
		if f.Parent > 0 {
			parentDepth = o.Frames[f.Parent-1].Depth
		}
		if f.Depth != parentDepth+1 {
			return fmt.Errorf("frame %d at depth %d under a parent at depth %d", f.Index, f.Depth, parentDepth)
		}
		if !slices.Contains(FrameStatuses, f.Status) {
			return fmt.Errorf("frame %d has status %q", f.Index, f.Status)
		}
		if UTF16Len(f.Origin) > MaxURLUnits {
			return fmt.Errorf("frame %d has an origin of %d units", f.Index, UTF16Len(f.Origin))
		}
		if f.Status != FrameCollected {
			// Nothing of a frame that was not read is in the observation.
			if f.Controls != 0 || f.TextParts != 0 || f.Scanned != 0 {
				return fmt.Errorf("frame %d is %s but has %d controls, %d text parts, %d scanned", f.Index, f.Status, f.Controls, f.TextParts, f.Scanned)
			}
			continue
		}
		// A collected frame's content stands in place of its element, so
		// the document holding that element was read too.
		if f.Parent > 0 && o.Frames[f.Parent-1].Status != FrameCollected {
			return fmt.Errorf("frame %d is collected inside frame %d, which is %s", f.Index, f.Parent, o.Frames[f.Parent-1].Status)
		}
		if f.Depth > MaxFrameDepth {
			return fmt.Errorf("frame %d is collected at depth %d, deeper than %d", f.Index, f.Depth, MaxFrameDepth)
		}
		if collected++; collected > MaxFrames {
			return fmt.Errorf("more than %d frames collected", MaxFrames)
		}
	}
	controls, err := inFrames(o, "control", o.Controls, func(c Control) int { return c.Frame })
	if err != nil {
		return err
	}
	if _, err := inFrames(o, "region", o.Regions, func(g Region) int { return g.Frame }); err != nil {
		return err
	}
	parts, err := inFrames(o, "text part", o.Text, func(p TextPart) int { return p.Frame })
	if err != nil {
		return err
	}
	for _, f := range o.Frames {
		if f.Controls != controls[f.Index] || f.TextParts != parts[f.Index] {
			return fmt.Errorf("frame %d counts %d controls and %d text parts; %d and %d name it",
				f.Index, f.Controls, f.TextParts, controls[f.Index], parts[f.Index])
		}
	}
	return nil
}

// inFrames counts the items of o (controls, regions or text parts, named
// by what) in each frame by its index, 0 being the top document's, and
// refuses an item that names a frame o did not collect.
func inFrames[T any](o *Observation, what string, items []T, frame func(T) int) ([]int, error) {
	n := make([]int, len(o.Frames)+1)
	for _, it := range items {
		f := frame(it)
		if f < 0 || f > len(o.Frames) || f > 0 && o.Frames[f-1].Status != FrameCollected {
			return nil, fmt.Errorf("a %s names frame %d, which is not a collected frame", what, f)
		}
		n[f]++
	}
	return n, nil
}
